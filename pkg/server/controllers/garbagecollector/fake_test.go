package garbagecollector

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// fakeAPI is an in-memory server of metadata for the workers' unit
// tests: Get, merge Patch with a resourceVersion precondition, Delete
// with preconditions (recorded, and applied as the server would).
type fakeAPI struct {
	mu      sync.Mutex
	objs    map[string]*metav1.PartialObjectMetadata
	rv      int
	scoped  map[string]bool // kind -> namespaced
	deletes []deleteCall
	patches []string
	// beforeDelete, if set, runs (once) as a Delete arrives: a write
	// racing the collector.
	beforeDelete func()
}

type deleteCall struct {
	name   string
	policy metav1.DeletionPropagation
	uid    types.UID
	rv     string
}

func newFakeAPI() *fakeAPI {
	return &fakeAPI{objs: map[string]*metav1.PartialObjectMetadata{}, scoped: map[string]bool{"ConfigMap": true, "Widget": true, "Gadget": false}}
}

func (f *fakeAPI) key(kind, ns, name string) string {
	if !f.scoped[kind] {
		ns = ""
	}
	return kind + "/" + ns + "/" + name
}

// add stores an object and returns its ref.
func (f *fakeAPI) add(kind, ns, name string, owners ...metav1.OwnerReference) objectRef {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv++
	if !f.scoped[kind] {
		ns = ""
	}
	o := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: kind},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, UID: types.UID(fmt.Sprintf("uid-%s-%d", name, f.rv)),
			ResourceVersion: strconv.Itoa(f.rv), OwnerReferences: owners,
		},
	}
	f.objs[f.key(kind, ns, name)] = o
	return objectRef{APIVersion: "v1", Kind: kind, Namespace: ns, Name: name, UID: o.UID}
}

func (f *fakeAPI) get(id objectRef) *metav1.PartialObjectMetadata {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.objs[f.key(id.Kind, id.Namespace, id.Name)]
	if o == nil {
		return nil
	}
	return o.DeepCopy()
}

func (f *fakeAPI) update(id objectRef, edit func(*metav1.PartialObjectMetadata)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.objs[f.key(id.Kind, id.Namespace, id.Name)]
	edit(o)
	f.rv++
	o.ResourceVersion = strconv.Itoa(f.rv)
}

func notFound(name string) error { return client.NewNotFound(schema.GroupResource{}, name) }

func conflict() error {
	return &client.StatusError{ErrStatus: metav1.Status{Code: http.StatusConflict, Reason: metav1.StatusReasonConflict}}
}

func (f *fakeAPI) Get(_ context.Context, key types.NamespacedName, obj client.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := f.objs[f.key(obj.GetObjectKind().GroupVersionKind().Kind, key.Namespace, key.Name)]
	if o == nil {
		return notFound(key.Name)
	}
	*obj.(*metav1.PartialObjectMetadata) = *o.DeepCopy()
	return nil
}

func (f *fakeAPI) Patch(_ context.Context, obj client.Object, pt types.PatchType, data []byte, _ ...client.WriteOption) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := f.key(obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName())
	o := f.objs[k]
	if o == nil {
		return notFound(obj.GetName())
	}
	if pt != types.MergePatchType {
		return fmt.Errorf("patch type %s", pt)
	}
	f.patches = append(f.patches, obj.GetName()+" "+string(data))
	cur, _ := json.Marshal(o)
	patched, err := jsonpatch.MergePatch(cur, data)
	if err != nil {
		return err
	}
	var out metav1.PartialObjectMetadata
	if err := json.Unmarshal(patched, &out); err != nil {
		return err
	}
	if out.ResourceVersion != o.ResourceVersion {
		return conflict()
	}
	f.rv++
	out.ResourceVersion = strconv.Itoa(f.rv)
	if out.DeletionTimestamp != nil && len(out.Finalizers) == 0 {
		delete(f.objs, k)
		return nil
	}
	f.objs[k] = &out
	*obj.(*metav1.PartialObjectMetadata) = *out.DeepCopy()
	return nil
}

func (f *fakeAPI) Delete(_ context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if hook := f.beforeDelete; hook != nil {
		f.beforeDelete = nil
		hook()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var do metav1.DeleteOptions
	for _, o := range opts {
		o.ApplyToDelete(&do)
	}
	call := deleteCall{name: obj.GetName()}
	if do.PropagationPolicy != nil {
		call.policy = *do.PropagationPolicy
	}
	if p := do.Preconditions; p != nil {
		if p.UID != nil {
			call.uid = *p.UID
		}
		if p.ResourceVersion != nil {
			call.rv = *p.ResourceVersion
		}
	}
	f.deletes = append(f.deletes, call)
	k := f.key(obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName())
	o := f.objs[k]
	switch {
	case o == nil:
		return notFound(obj.GetName())
	case call.uid != "" && call.uid != o.UID, call.rv != "" && call.rv != o.ResourceVersion:
		return conflict()
	}
	switch call.policy {
	case metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan:
		fin := metav1.FinalizerDeleteDependents
		if call.policy == metav1.DeletePropagationOrphan {
			fin = metav1.FinalizerOrphanDependents
		}
		now := metav1.Now()
		o.DeletionTimestamp = &now
		if !slices.Contains(o.Finalizers, fin) {
			o.Finalizers = append(o.Finalizers, fin)
		}
		f.rv++
		o.ResourceVersion = strconv.Itoa(f.rv)
	default:
		delete(f.objs, k)
	}
	return nil
}

// RESTMapping answers the scope of the fake's kinds.
func (f *fakeAPI) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	ns, ok := f.scoped[gk.Kind]
	if !ok {
		return nil, &meta.NoKindMatchError{GroupKind: gk}
	}
	scope := meta.RESTScopeRoot
	if ns {
		scope = meta.RESTScopeNamespace
	}
	return &meta.RESTMapping{Scope: scope}, nil
}

// recorder is an enqueuer that remembers what it was given.
type recorder struct {
	mu  sync.Mutex
	got []types.UID
}

func (r *recorder) Add(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, uid)
}

// take returns and forgets what was added.
func (r *recorder) take() []types.UID {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.got
	r.got = nil
	return out
}

// ownerOf is a reference to id.
func ownerOf(id objectRef, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: id.APIVersion, Kind: id.Kind, Name: id.Name, UID: id.UID, BlockOwnerDeletion: &block}
}

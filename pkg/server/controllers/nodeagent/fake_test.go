package nodeagent

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// store is an in-memory stand-in for the server and the informers, so
// the reconcilers can be driven step by step with a fake clock. It keeps
// resourceVersions and answers conflicts, not-found and already-exists
// as the server does; it validates nothing.
type store struct {
	mu      sync.Mutex
	objs    map[string]client.Object
	rv      int
	writes  []string // "verb kind ns/name" in order
	deletes []metav1.DeleteOptions
}

func newStore(objs ...client.Object) *store {
	s := &store{objs: map[string]client.Object{}}
	for _, o := range objs {
		if err := s.Create(context.Background(), o); err != nil {
			panic(err)
		}
	}
	s.writes = nil
	return s
}

var _ client.Interface = (*store)(nil)

func keyFor(o runtime.Object, ns, name string) string {
	return fmt.Sprintf("%T/%s/%s", o, ns, name)
}

func statusErr(reason metav1.StatusReason, code int32, msg string) error {
	return &client.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Reason: reason, Code: code, Message: msg}}
}

func (s *store) Get(_ context.Context, key types.NamespacedName, obj client.Object) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.objs[keyFor(obj, key.Namespace, key.Name)]
	if !ok {
		return statusErr(metav1.StatusReasonNotFound, 404, key.String()+" not found")
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(o.DeepCopyObject()).Elem())
	return nil
}

func (s *store) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.objs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var items []runtime.Object
	for _, k := range keys {
		switch o := s.objs[k].(type) {
		case *corev1.Pod:
			if _, ok := list.(*corev1.PodList); ok {
				items = append(items, o.DeepCopy())
			}
		case *corev1.Node:
			if _, ok := list.(*corev1.NodeList); ok {
				items = append(items, o.DeepCopy())
			}
		}
	}
	return meta.SetList(list, items)
}

func (s *store) Create(_ context.Context, obj client.Object, _ ...client.WriteOption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := keyFor(obj, obj.GetNamespace(), obj.GetName())
	if _, ok := s.objs[k]; ok {
		return statusErr(metav1.StatusReasonAlreadyExists, 409, k+" exists")
	}
	s.rv++
	obj.SetResourceVersion(strconv.Itoa(s.rv))
	if obj.GetUID() == "" {
		obj.SetUID(types.UID("uid-" + obj.GetName()))
	}
	s.objs[k] = obj.DeepCopyObject().(client.Object)
	s.writes = append(s.writes, fmt.Sprintf("create %T %s/%s", obj, obj.GetNamespace(), obj.GetName()))
	return nil
}

func (s *store) update(obj client.Object, verb string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := keyFor(obj, obj.GetNamespace(), obj.GetName())
	old, ok := s.objs[k]
	if !ok {
		return statusErr(metav1.StatusReasonNotFound, 404, k+" not found")
	}
	if obj.GetResourceVersion() != old.GetResourceVersion() {
		return statusErr(metav1.StatusReasonConflict, 409, k+" changed")
	}
	s.rv++
	obj.SetResourceVersion(strconv.Itoa(s.rv))
	s.objs[k] = obj.DeepCopyObject().(client.Object)
	s.writes = append(s.writes, fmt.Sprintf("%s %T %s/%s", verb, obj, obj.GetNamespace(), obj.GetName()))
	return nil
}

func (s *store) Update(_ context.Context, obj client.Object, _ ...client.WriteOption) error {
	return s.update(obj, "update")
}

func (s *store) UpdateStatus(_ context.Context, obj client.Object, _ ...client.WriteOption) error {
	return s.update(obj, "status")
}

func (s *store) Patch(_ context.Context, obj client.Object, _ types.PatchType, _ []byte, _ ...client.WriteOption) error {
	return statusErr(metav1.StatusReasonMethodNotAllowed, 405, "patch not supported by the test store")
}

func (s *store) Delete(_ context.Context, obj client.Object, opts ...client.DeleteOption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var o metav1.DeleteOptions
	for _, opt := range opts {
		opt.ApplyToDelete(&o)
	}
	k := keyFor(obj, obj.GetNamespace(), obj.GetName())
	old, ok := s.objs[k]
	if !ok {
		return statusErr(metav1.StatusReasonNotFound, 404, k+" not found")
	}
	if o.Preconditions != nil && o.Preconditions.UID != nil && *o.Preconditions.UID != old.GetUID() {
		return statusErr(metav1.StatusReasonConflict, 409, "uid precondition failed")
	}
	delete(s.objs, k)
	s.deletes = append(s.deletes, o)
	s.writes = append(s.writes, fmt.Sprintf("delete %T %s/%s", obj, obj.GetNamespace(), obj.GetName()))
	return nil
}

func (s *store) DeleteAllOf(context.Context, client.Object, ...client.DeleteAllOfOption) error {
	return statusErr(metav1.StatusReasonMethodNotAllowed, 405, "deletecollection not supported by the test store")
}

func (s *store) Scheme() *runtime.Scheme { return client.NewScheme() }

func (s *store) RESTMapper() meta.RESTMapper { return nil }

// takeWrites returns the writes since the last call, but those of
// Events, which the recorders make in their own time.
func (s *store) takeWrites() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var w []string
	for _, x := range s.writes {
		if !strings.Contains(x, "*v1.Event ") {
			w = append(w, x)
		}
	}
	s.writes = nil
	return w
}

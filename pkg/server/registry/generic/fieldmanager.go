package generic

import (
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// fieldManagers keeps one managed-fields tracker per served resource and
// subresource. Every write records which manager set which fields in
// metadata.managedFields; server-side apply merges by them and reports
// conflicts between managers. Trackers are built on first use and
// dropped when the registry changes, since a CRD update can change the
// schema they merge by.
type fieldManagers struct {
	reg *registry.Registry
	log *slog.Logger

	mu      sync.Mutex
	gen     uint64
	byRes   map[fieldManagerKey]*managedfields.FieldManager
	builtin managedfields.TypeConverter
	shapes  shapeEntries
}

type fieldManagerKey struct {
	res         *registry.Resource
	subresource registry.Subresource
}

func (f *fieldManagers) get(res *registry.Resource, subresource registry.Subresource) (*managedfields.FieldManager, error) {
	gen, _ := f.reg.Changed()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byRes == nil || f.gen != gen {
		f.byRes = map[fieldManagerKey]*managedfields.FieldManager{}
		f.gen = gen
	}
	k := fieldManagerKey{res, subresource}
	if fm, ok := f.byRes[k]; ok {
		return fm, nil
	}
	tc, err := f.typeConverter(res)
	if err != nil {
		return nil, err
	}
	gv := res.GroupVersion()
	objs := unstructuredObjects{res: res}
	reset := resetFields(res, subresource)
	var fm *managedfields.FieldManager
	if res.Typed {
		fm, err = managedfields.NewDefaultFieldManager(tc, objs, objs, objs, res.GroupVersionKind(), gv, string(subresource), reset)
	} else {
		fm, err = managedfields.NewDefaultCRDFieldManager(tc, objs, objs, objs, res.GroupVersionKind(), gv, string(subresource), reset)
	}
	if err != nil {
		return nil, err
	}
	f.byRes[k] = fm
	return fm, nil
}

// resetFields are the fields a write through one endpoint may not
// change, so its manager does not come to own them: the main resource
// resets status when status has its own endpoint, and the status
// endpoint resets everything else, unless the kind says which
// (ResetFieldsStrategy).
func resetFields(res *registry.Resource, subresource registry.Subresource) map[fieldpath.APIVersion]fieldpath.Filter {
	v := fieldpath.APIVersion(res.APIVersion())
	if rs, ok := res.Strategy.(registry.ResetFieldsStrategy); ok {
		set := fieldpath.NewSet()
		for _, p := range rs.ResetFields(subresource) {
			parts := make([]any, len(p))
			for i := range p {
				parts[i] = p[i]
			}
			set.Insert(fieldpath.MakePathOrDie(parts...))
		}
		return map[fieldpath.APIVersion]fieldpath.Filter{v: fieldpath.NewExcludeSetFilter(set)}
	}
	if !res.StatusSubresource {
		return nil
	}
	if subresource == registry.SubresourceStatus {
		return map[fieldpath.APIVersion]fieldpath.Filter{v: fieldpath.NewExcludeSetFilter(fieldpath.NewSet(
			fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata"),
		))}
	}
	return map[fieldpath.APIVersion]fieldpath.Filter{v: fieldpath.NewExcludeSetFilter(fieldpath.NewSet(fieldpath.MakePathOrDie("status")))}
}

// track records manager's update of live into next in next's
// managedFields. Tracking never fails a write: an object whose managed
// fields cannot be computed keeps the live object's.
func (s *Store) track(res *registry.Resource, subresource registry.Subresource, live, next *unstructured.Unstructured, manager string) *unstructured.Unstructured {
	if subresource == registry.SubresourceFinalize {
		return next
	}
	fm, err := s.fields.get(res, subresource)
	if err != nil {
		s.log.Warn("cannot track managed fields", "resource", res.GroupVersionResource().String(), "err", err)
		return next
	}
	var shape string
	if live == nil {
		gen, _ := s.reg.Changed()
		if shape = createShapeKey(gen, res, subresource, manager, next.Object); shape != "" && s.fields.rememberedCreate(shape, next, time.Now()) {
			return next
		}
		live = emptyObject(res)
	}
	obj, err := fm.Update(live, next, manager)
	out, ok := obj.(*unstructured.Unstructured)
	if err != nil || !ok {
		// Usually a value of the wrong type, which validation refuses
		// next; should the write go through, it keeps the managed
		// fields it had, as kube-apiserver does.
		keepManagedFields(next, live)
		return next
	}
	if shape != "" {
		s.fields.rememberCreate(shape, out)
	}
	return out
}

// unstructuredObjects creates, converts and defaults the objects of one
// resource for the field manager. Versions of a custom resource share
// one schema-less storage form (conversion None), so converting is
// setting apiVersion.
type unstructuredObjects struct {
	res *registry.Resource
}

func (o unstructuredObjects) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// Default fills in a custom object's schema defaults, so an applied
// configuration merges with defaulted fields as a stored object has them.
func (o unstructuredObjects) Default(obj runtime.Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if st := o.res.Structural(); st != nil && st.HasDefaults() {
			st.Default(u.Object)
		}
	}
}

func (o unstructuredObjects) Convert(in, out, _ any) error {
	src, ok1 := in.(*unstructured.Unstructured)
	dst, ok2 := out.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return fmt.Errorf("generic: cannot convert %T to %T", in, out)
	}
	dst.Object = runtime.DeepCopyJSON(src.Object)
	return nil
}

func (o unstructuredObjects) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("generic: cannot convert %T", in)
	}
	gvk := u.GroupVersionKind()
	want, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{gvk})
	if !ok || want.GroupKind() != gvk.GroupKind() {
		// Another group's version of the object (an events.k8s.io
		// manager of a core Event): as in kube-apiserver, whose field
		// manager knows only its own group's versions, it is a version
		// the manager cannot track, and managers recorded in it are
		// dropped on the next write.
		return nil, runtime.NewNotRegisteredErrForTarget("generic", reflect.TypeOf(in), target)
	}
	if want == gvk {
		return u, nil
	}
	out := u.DeepCopy()
	out.SetGroupVersionKind(want)
	return out, nil
}

func (o unstructuredObjects) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

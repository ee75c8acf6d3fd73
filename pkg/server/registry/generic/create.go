package generic

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// generateNameAttempts is how often a create with generateName retries a
// name that is taken before giving up with AlreadyExists.
const generateNameAttempts = 8

// CreateOptions are a create's options.
type CreateOptions struct {
	DryRun bool
	// FieldManager is who the object's fields are recorded under.
	FieldManager string
	// EmptyNamespace marks a request whose URL named an empty namespace
	// (/namespaces//configmaps): the object loses its namespace.
	EmptyNamespace bool
	// applied: the object comes from a server-side apply, which recorded
	// its managed fields itself.
	applied bool
	// named: the request's URL names the object (an apply or a PUT that
	// creates it), where a POST names only the collection.
	named bool
}

// Create stores u, a new object of res in namespace ns (ignored for
// cluster-scoped resources), and returns it as served. A resource that is
// not stored answers through its strategy's Create instead.
func (s *Store) Create(ctx context.Context, res *registry.Resource, ns string, u *unstructured.Unstructured, opts CreateOptions) ([]byte, error) {
	if !opts.applied {
		u = s.track(res, registry.SubresourceNone, answeredLive(res), u, opts.FieldManager)
	}
	gr := res.GroupResource()
	if s.createGate != nil {
		if err := s.createGate(res); err != nil {
			return nil, err
		}
	}
	if res.Namespaced {
		switch got := u.GetNamespace(); {
		case opts.EmptyNamespace:
			// kube-apiserver clears the object's namespace, then finds
			// it missing.
			return nil, apierror.Invalid(kindOf(res), u.GetName(), field.ErrorList{field.Required(field.NewPath("metadata", "namespace"), "")})
		case got == "":
			u.SetNamespace(ns)
		case got != ns:
			return nil, apierror.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	} else {
		u.SetNamespace("")
	}
	// A kind that is not stored answers with what the request holds, its
	// managed fields and settled namespace included, as kube-apiserver's
	// access reviews do.
	if c, ok := res.Strategy.(registry.Creater); ok && !res.Stored() {
		obj, err := c.Create(ctx, u.Object)
		if err != nil {
			return nil, apierror.From(err, gr, u.GetName())
		}
		return jsonMarshal(obj)
	}
	if err := s.admit(ctx, res, opts.named, u, nil); err != nil {
		return nil, err
	}
	now := s.now()
	// The name is generated first, as kube-apiserver does, so the
	// strategy sees it: a Job's job-name label is its generated name.
	generate := u.GetName() == "" && u.GetGenerateName() != ""
	if generate {
		u.SetName(u.GetGenerateName() + rand.String(5))
	}
	prepareCreateMeta(u, now, res.TracksGeneration)
	if res.StatusSubresource && !res.KeepsStatusOnCreate() {
		delete(u.Object, "status")
	}
	if cs, ok := res.Strategy.(registry.CallerStrategy); ok {
		cs.PrepareForCaller(ctx, u.Object)
	}
	if res.Strategy != nil {
		if errs := res.Strategy.PrepareForCreate(now, u.Object); len(errs) > 0 {
			return nil, apierror.Invalid(kindOf(res), u.GetName(), errs)
		}
	}
	if errs := append(validateMeta(u, res), res.Validate(ctx, u.Object, nil)...); len(errs) > 0 {
		return nil, apierror.Invalid(kindOf(res), u.GetName(), errs)
	}
	if err := s.admitValidated(ctx, res, registry.SubresourceNone, u, nil); err != nil {
		return nil, err
	}
	if res.Namespaced {
		if err := s.checkNamespace(ctx, u.GetNamespace(), gr, u.GetName()); err != nil {
			return nil, err
		}
	}
	release, err := s.allocate(ctx, res, u, nil)
	if err != nil {
		return nil, err
	}
	defer release()
	if opts.DryRun {
		b, err := storedBytes(u)
		if err != nil {
			return nil, apierror.Internal(err)
		}
		return b, nil
	}
	for attempt := 0; ; attempt++ {
		val, err := s.storable(res, u, opts.applied)
		if err != nil {
			return nil, err
		}
		withdraw := s.offer(res, u, val)
		rev, err := s.storage.Create(ctx, res.Key(u.GetNamespace(), u.GetName()), val)
		if err != nil {
			withdraw()
		}
		if errors.Is(err, storage.ErrAlreadyExists) && generate && attempt < generateNameAttempts {
			u.SetName(u.GetGenerateName() + rand.String(5))
			continue
		}
		if err != nil {
			return nil, apierror.From(err, gr, u.GetName())
		}
		b, err := servedFromStored(res, u, val, rev)
		if err != nil {
			return nil, apierror.Internal(err)
		}
		if err := s.afterWrite(ctx, res, u.GetName(), rev); err != nil {
			return nil, err
		}
		return b, nil
	}
}

// answeredLive is what the managed fields of a create of res are
// recorded against: for a kind that is not stored, the zero object of its
// Go type, as kube-apiserver records them against a new object, so that
// fields the request leaves at their zero value (an access review's
// status.allowed) are nobody's. nil (the bare kind) for the others.
func answeredLive(res *registry.Resource) *unstructured.Unstructured {
	if res.Stored() || !res.Typed {
		return nil
	}
	typed, err := registry.Scheme().New(res.GroupVersionKind())
	if err != nil {
		return nil
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetGroupVersionKind(res.GroupVersionKind())
	return u
}

// prepareCreateMeta sets what the server owns in a new object's metadata.
func prepareCreateMeta(u *unstructured.Unstructured, now time.Time, generation bool) {
	meta, _ := u.Object["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		u.Object["metadata"] = meta
	}
	for _, k := range []string{"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(meta, k)
	}
	meta["uid"] = string(uuid.NewUUID())
	meta["creationTimestamp"] = metav1.Unix(now.Unix(), 0).UTC().Format("2006-01-02T15:04:05Z")
	if generation {
		meta["generation"] = int64(1)
	} else {
		delete(meta, "generation")
	}
}

// checkNamespace refuses a create in a namespace that does not exist
// (404) or is being deleted (403 NamespaceTerminating), as
// kube-apiserver's NamespaceLifecycle admission does.
func (s *Store) checkNamespace(ctx context.Context, ns string, gr schema.GroupResource, name string) error {
	nsRes, ok := s.namespaces()
	if !ok {
		return nil
	}
	// The cache answers for a namespace it holds, as kube-apiserver's
	// informer does; one it has not seen yet (just created) is looked up
	// in storage. A namespace being deleted is Terminating from the same
	// write that stamps its deletion.
	if c, err := s.cacheFor(nsRes); err == nil {
		if o, _ := c.Get(nsRes.Key("", ns)); o != nil && o.Fields != nil && o.Fields.Has("status.phase") {
			if o.Fields.Get("status.phase") == "Terminating" {
				return apierror.NamespaceTerminating(ns, gr, name)
			}
			return nil
		}
	}
	kv, err := s.storage.Get(ctx, nsRes.Key("", ns))
	if errors.Is(err, storage.ErrNotFound) {
		return apierror.NotFound(nsRes.GroupResource(), ns)
	}
	if err != nil {
		return apierror.From(err, nsRes.GroupResource(), ns)
	}
	u, err := ParseObject(kv.Value)
	if err != nil {
		return apierror.Internal(err)
	}
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	if u.GetDeletionTimestamp() != nil || phase == "Terminating" {
		return apierror.NamespaceTerminating(ns, gr, name)
	}
	return nil
}

// EnsureCreated creates u, an object of res the server itself keeps (a
// system namespace), unless one of its name exists. It reports whether
// it created it.
func (s *Store) EnsureCreated(ctx context.Context, res *registry.Resource, u *unstructured.Unstructured) (bool, error) {
	key := res.Key(u.GetNamespace(), u.GetName())
	if _, err := s.storage.Get(ctx, key); err == nil {
		return false, nil
	} else if !errors.Is(err, storage.ErrNotFound) {
		return false, err
	}
	now := s.now()
	prepareCreateMeta(u, now, res.TracksGeneration)
	if res.Strategy != nil {
		if fe := res.Strategy.PrepareForCreate(now, u.Object); len(fe) > 0 {
			return false, fe.ToAggregate()
		}
	}
	release, err := s.allocate(ctx, res, u, nil)
	if err != nil {
		return false, err
	}
	defer release()
	val, err := storedBytes(u)
	if err != nil {
		return false, err
	}
	switch _, err := s.storage.Create(ctx, key, val); {
	case err == nil:
		return true, nil
	case errors.Is(err, storage.ErrAlreadyExists):
		return false, nil
	default:
		return false, err
	}
}

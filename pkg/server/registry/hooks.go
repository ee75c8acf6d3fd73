package registry

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FinalizeStrategy is implemented by kinds with a finalize subresource
// (Namespaces): the one write that may change spec.finalizers, and
// nothing else.
type FinalizeStrategy interface {
	// PrepareForFinalize returns the object a finalize write stores:
	// old with the spec finalizers of obj.
	PrepareForFinalize(obj, old map[string]any) map[string]any
}

// FinalizeValidator is implemented by kinds whose finalize writes are
// checked (Namespaces): the store refuses with 422 the object
// PrepareForFinalize returns when ValidateFinalize finds errors in it.
type FinalizeValidator interface {
	ValidateFinalize(obj map[string]any) field.ErrorList
}

// ValidateFinalize checks the spec finalizers a finalize write leaves,
// as kube-apiserver does.
func (namespaceStrategy) ValidateFinalize(obj map[string]any) field.ErrorList {
	fins, _ := nestedMap(obj, false, "spec")["finalizers"].([]any)
	return namespaceFinalizerErrors(fins, true)
}

// ServingStrategy is implemented by kinds whose objects change what the
// server serves (CustomResourceDefinitions) or whom it allows (the RBAC
// kinds). A write of one is answered only once the watch cache has
// applied it, which is when the change takes effect, so "create a CRD,
// then a custom object" or "bind a role, then use it" needs no polling.
type ServingStrategy interface {
	ChangesServing()
}

// DeleteAnswerStrategy is implemented by built-in kinds that answer an
// immediate delete with the deleted object rather than a Status, as
// kube-apiserver's Namespaces do. Custom resources always answer with
// the object.
type DeleteAnswerStrategy interface {
	ReturnsDeletedObject()
}

// OrphanStrategy is implemented by kinds whose dependents a delete
// orphans when it names no propagation policy and the object holds no
// garbage-collection finalizer (kube's DefaultGarbageCollectionPolicy
// OrphanDependents): batch/v1 Jobs.
type OrphanStrategy interface {
	OrphansByDefault()
}

// Creater is the strategy of a kind that is not stored (Verbs without
// "list"): a create is answered by Create, from the request's context,
// as SelfSubjectReview answers who the caller is.
type Creater interface {
	Create(ctx context.Context, obj map[string]any) (map[string]any, error)
}

// AdmitStrategy is implemented by kinds whose writes depend on who
// makes them, not only on what they hold: no one may grant through an
// RBAC role or binding a permission they do not hold themselves. The
// store calls Admit on every create and update of the main resource,
// dry runs and the updates of patch and apply included, once the
// object's namespace is settled and before the kind's strategy prepares
// and validates it: kube-apiserver checks in the kind's storage, ahead
// of its strategy, so a refusal wins over an invalid object.
//
// name is the object's name as the request's URL gives it: empty for a
// create by POST, which names the collection. obj is the object asked
// for, without the kind's defaults; old is the stored object on update
// and nil on create. Neither may be changed. An error refuses the
// write: a *ForbiddenError is a 403 about the object, a *NotFoundError
// a 404, and any other error is mapped by apierror.From.
type AdmitStrategy interface {
	Admit(ctx context.Context, name string, obj, old map[string]any) error
}

// AnswersDeleteWithObject reports whether an immediate delete answers
// with the object: custom resources do, and built-in kinds whose strategy
// says so; other built-in kinds answer with a Success Status.
func (r *Resource) AnswersDeleteWithObject() bool {
	if !r.Typed {
		return true
	}
	_, ok := r.Strategy.(DeleteAnswerStrategy)
	return ok
}

// ChangesServing reports whether writes of the resource change what the
// server serves (ServingStrategy).
func (r *Resource) ChangesServing() bool {
	_, ok := r.Strategy.(ServingStrategy)
	return ok
}

// ReturnsDeletedObject: a deleted Namespace is answered with its last
// state, as kube-apiserver does.
func (namespaceStrategy) ReturnsDeletedObject() {}

// PrepareForFinalize takes spec.finalizers from the write and everything
// else from the stored namespace.
func (namespaceStrategy) PrepareForFinalize(obj, old map[string]any) map[string]any {
	next := runtime.DeepCopyJSON(old)
	fins, found := nestedMap(obj, false, "spec")["finalizers"]
	switch {
	case found:
		nestedMap(next, true, "spec")["finalizers"] = runtime.DeepCopyJSONValue(fins)
	default:
		if spec := nestedMap(next, false, "spec"); spec != nil {
			delete(spec, "finalizers")
		}
	}
	return next
}

// ChangesServing: a CRD write changes the served resources.
func (crdStrategy) ChangesServing() {}

// ChangesServing: the authorizer reads roles and bindings from the watch
// cache.
func (roleStrategy) ChangesServing()    {}
func (bindingStrategy) ChangesServing() {}

// GracefulDeleteStrategy is implemented by kinds whose deletion waits a
// grace period for something outside the server to finish (Pods: the
// kubelet stops the containers, then deletes the pod with no grace).
// During the grace period the object stays, with deletionTimestamp set
// to when the period ends and deletionGracePeriodSeconds to its length.
type GracefulDeleteStrategy interface {
	// GracePeriod returns the seconds a delete of obj waits, given
	// the period the request asked for (nil: none); 0 deletes at once.
	GracePeriod(obj map[string]any, requested *int64) int64
}

// BindStrategy is implemented by kinds a binding assigns (Pods): a
// create on their binding subresource.
type BindStrategy interface {
	// ValidateBinding returns what is wrong with binding itself.
	ValidateBinding(binding map[string]any) field.ErrorList
	// Bind assigns obj as binding asks at time now. An error refuses
	// the binding as a conflict with the object's state, worded for the
	// client.
	Bind(now time.Time, obj, binding map[string]any) error
}

// AllocateStrategy is implemented by kinds whose objects hold values
// unique across their resource, assigned from a range (a Service's
// cluster IPs and node ports). The store calls it for one write at a
// time, once every earlier write is in the watch cache, with what the
// other objects of the resource hold.
type AllocateStrategy interface {
	// Allocate assigns obj's unique values, keeping those old holds
	// (nil on create); taken are the other objects of the resource.
	Allocate(obj, old map[string]any, taken []map[string]any) field.ErrorList
}

// ConnectStrategy is implemented by kinds whose objects run something a
// client can reach through a subresource (Pods: log, exec, attach,
// portforward).
type ConnectStrategy interface {
	// Connect answers a request through sub, with the query opts, on
	// obj: the bytes to answer with (a log), or why not (a
	// *BadRequestError).
	Connect(obj map[string]any, sub Subresource, opts map[string][]string) ([]byte, error)
}

// EphemeralContainersStrategy is implemented by kinds with an
// ephemeralcontainers subresource (Pods): its writes add containers to
// spec.ephemeralContainers and change nothing else.
type EphemeralContainersStrategy interface {
	// PrepareForEphemeralContainersUpdate returns the object such a
	// write stores, old with obj's ephemeral containers, and what is
	// invalid in it.
	PrepareForEphemeralContainersUpdate(obj, old map[string]any) (map[string]any, field.ErrorList)
}

// ScaleSelectorStrategy is implemented by kinds with a scale
// subresource whose selector is a LabelSelector object rather than a
// string field (the apps workloads): the Scale's status.selector is
// that selector printed in label selector syntax, which no path into
// the object holds.
type ScaleSelectorStrategy interface {
	ScaleSelector(obj map[string]any) string
}

// GenerationStrategy is implemented by kinds whose generation counts
// more than changes outside metadata and status. The store bumps the
// generation of a write to the main resource when either says so.
type GenerationStrategy interface {
	// BumpsGeneration reports whether the update of old to obj is a
	// new generation for a reason besides a changed spec.
	BumpsGeneration(obj, old map[string]any) bool
}

// ApprovalStrategy is implemented by kinds with an approval subresource
// (CertificateSigningRequests): a write through it decides the object,
// and changes nothing else the kind keeps.
type ApprovalStrategy interface {
	// PrepareForApprovalUpdate adjusts obj, the object an approval
	// write asks for, given the stored old, and returns what is
	// invalid in it; the generic rules for server-owned metadata apply
	// afterwards.
	PrepareForApprovalUpdate(obj, old map[string]any) field.ErrorList
}

// CallerStrategy is implemented by kinds that record who creates an
// object (a CertificateSigningRequest names its requestor). The store
// calls PrepareForCaller on every create, dry runs and applies
// included, just before the strategy's PrepareForCreate, with the
// request's context: the caller is user.From(ctx).
type CallerStrategy interface {
	PrepareForCaller(ctx context.Context, obj map[string]any)
}

// ValidatedAdmitStrategy is implemented by kinds whose writes depend on
// who makes them once the object is known to be valid, as
// kube-apiserver's validating admission plugins run after the kind's
// strategy (approving a CertificateSigningRequest takes the right to
// approve for its signer). The store calls AdmitValidated on every
// create (sub is SubresourceNone, old nil) and on every update through
// any subresource, dry runs included, once the object is prepared and
// validated and before it is stored. obj is the object to store and old
// the stored one; neither may be changed. An error refuses the write
// as AdmitStrategy's do.
type ValidatedAdmitStrategy interface {
	AdmitValidated(ctx context.Context, sub Subresource, obj, old map[string]any) error
}

// ResetFieldsStrategy is implemented by kinds whose writes through an
// endpoint keep other fields than the status split says (kube's
// GetResetFields): the paths a write through sub ("" for the object
// itself) cannot change, so its field manager does not come to own
// them. Without it, the object resets status when the kind has a
// status subresource, and the status subresource resets the rest.
type ResetFieldsStrategy interface {
	ResetFields(sub Subresource) [][]string
}

package apierror

import (
	"errors"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// StatusError is an API error: it is written to the client as a
// Kubernetes Status object.
type StatusError struct {
	Status metav1.Status
}

func (e *StatusError) Error() string { return e.Status.Message }

// New is a failure Status with code, reason and message.
func New(code int32, reason metav1.StatusReason, msg string) *StatusError {
	return &StatusError{Status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: msg,
	}}
}

// WithDetails names the object a Status is about.
func WithDetails(e *StatusError, gr schema.GroupResource, name string) *StatusError {
	e.Status.Details = &metav1.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return e
}

// NotFound is kube-apiserver's NotFound Status.
func NotFound(gr schema.GroupResource, name string) *StatusError {
	return WithDetails(New(http.StatusNotFound, metav1.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", gr.String(), name)), gr, name)
}

// AlreadyExists is kube-apiserver's AlreadyExists Status.
func AlreadyExists(gr schema.GroupResource, name string) *StatusError {
	return WithDetails(New(http.StatusConflict, metav1.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", gr.String(), name)), gr, name)
}

// Conflict is kube-apiserver's Conflict Status.
func Conflict(gr schema.GroupResource, name, why string) *StatusError {
	return WithDetails(New(http.StatusConflict, metav1.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", gr.String(), name, why)), gr, name)
}

const StaleObject = "the object has been modified; please apply your changes to the latest version and try again"

// Invalid is kube-apiserver's Invalid Status.
func Invalid(kind schema.GroupKind, name string, errs field.ErrorList) *StatusError {
	e := New(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		fmt.Sprintf("%s %q is invalid: %s", kind.String(), name, errs.ToAggregate().Error()))
	e.Status.Details = &metav1.StatusDetails{Name: name, Group: kind.Group, Kind: kind.Kind}
	for _, fe := range errs {
		e.Status.Details.Causes = append(e.Status.Details.Causes, metav1.StatusCause{
			Type: metav1.CauseType(fe.Type), Message: fe.ErrorBody(), Field: fe.Field,
		})
	}
	return e
}

// BadRequest is kube-apiserver's BadRequest Status.
func BadRequest(format string, args ...any) *StatusError {
	return New(http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf(format, args...))
}

// Expired is kube-apiserver's Expired Status.
func Expired(msg string) *StatusError {
	return New(http.StatusGone, metav1.StatusReasonExpired, msg)
}

// TooLargeResourceVersion is kube-apiserver's TooLargeResourceVersion Status.
func TooLargeResourceVersion() *StatusError {
	e := New(http.StatusGatewayTimeout, metav1.StatusReasonTimeout,
		"Too large resource version")
	e.Status.Details = &metav1.StatusDetails{
		Causes:            []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
		RetryAfterSeconds: 1,
	}
	return e
}

// MethodNotAllowed is kube-apiserver's answer to a method no route
// serves at a path: a fixed message and empty details.
func MethodNotAllowed() *StatusError {
	e := New(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource")
	e.Status.Details = &metav1.StatusDetails{}
	return e
}

// UnsupportedMediaType is kube-apiserver's UnsupportedMediaType Status.
func UnsupportedMediaType(got string, accepted []string) *StatusError {
	return New(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s (got %q)", joinComma(accepted), got))
}

// NotAcceptable is kube-apiserver's NotAcceptable Status.
func NotAcceptable(accepted []string) *StatusError {
	return New(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: "+joinComma(accepted))
}

// Forbidden refuses a request, worded as kube-apiserver's refusals are:
// on one object (`pods "p" is forbidden: ...`), on a collection when
// name is empty (`pods is forbidden: ...`), or on a path when gr is
// empty too (`forbidden: ...`).
func Forbidden(gr schema.GroupResource, name, reason string) *StatusError {
	var msg string
	switch {
	case gr.Empty():
		msg = "forbidden: " + reason
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %s", gr.String(), reason)
	default:
		msg = fmt.Sprintf("%s %q is forbidden: %s", gr.String(), name, reason)
	}
	return WithDetails(New(http.StatusForbidden, metav1.StatusReasonForbidden, msg), gr, name)
}

// Unauthorized is kube-apiserver's Unauthorized Status.
func Unauthorized() *StatusError {
	return New(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized")
}

// Internal is kube-apiserver's Internal Status.
func Internal(err error) *StatusError {
	return New(http.StatusInternalServerError, metav1.StatusReasonInternalError,
		"Internal error occurred: "+err.Error())
}

// PathNotFound is kube-apiserver's PathNotFound Status.
func PathNotFound() *StatusError {
	return New(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
}

func joinComma(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// From maps any error to the Status sent for it. Storage and
// registry errors are typed; anything else is an internal error.
func From(err error, gr schema.GroupResource, name string) *StatusError {
	var se *StatusError
	var strict *registry.StrictError
	var compacted *storage.CompactedError
	var quota *storage.QuotaError
	var forbidden *registry.ForbiddenError
	var badRequest *registry.BadRequestError
	var tooMany *registry.TooManyRequestsError
	var refused *registry.InternalRefusalError
	var missing *registry.NotFoundError
	var invalid *registry.InvalidError
	var conflict *registry.ConflictError
	switch {
	case errors.As(err, &se):
		return se
	case errors.As(err, &forbidden):
		return Forbidden(gr, name, forbidden.Reason)
	case errors.As(err, &missing) && missing.Resource != (schema.GroupResource{}):
		return NotFound(missing.Resource, missing.Name)
	case errors.As(err, &missing):
		return NotFound(gr, missing.Name)
	case errors.As(err, &conflict):
		return Conflict(conflict.Resource, conflict.Name, conflict.Message)
	case errors.As(err, &invalid):
		return Invalid(invalid.Kind, invalid.Name, invalid.Errs)
	case errors.As(err, &tooMany):
		return TooManyRequests(tooMany)
	case errors.As(err, &refused):
		return New(http.StatusInternalServerError, "", refused.Message)
	case errors.As(err, &badRequest):
		return BadRequest("%s", badRequest.Message)
	case errors.As(err, &strict):
		return BadRequest("%s", strict.Error())
	case errors.Is(err, registry.ErrDecode):
		return BadRequest("%s", err.Error())
	case errors.Is(err, storage.ErrNotFound):
		return NotFound(gr, name)
	case errors.Is(err, storage.ErrAlreadyExists):
		return AlreadyExists(gr, name)
	case errors.Is(err, storage.ErrConflict):
		return Conflict(gr, name, StaleObject)
	case errors.As(err, &compacted):
		return Expired(fmt.Sprintf("too old resource version: %d (%d)", compacted.Requested, compacted.Oldest))
	case errors.Is(err, storage.ErrCompacted), errors.Is(err, watchcache.ErrExpired):
		return Expired("too old resource version")
	case errors.Is(err, storage.ErrInvalidContinue):
		return BadRequest("continue key is not valid: %v", err)
	case errors.Is(err, storage.ErrFutureRevision):
		return TooLargeResourceVersion()
	case errors.As(err, &quota):
		return QuotaExceeded(quota)
	case errors.Is(err, storage.ErrInvalidKey):
		return BadRequest("%v", err)
	case errors.Is(err, storage.ErrTooLarge):
		return StoreTooLarge()
	case errors.Is(err, storage.ErrUnavailable):
		return New(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "the storage backend is unavailable: "+err.Error())
	case errors.Is(err, storage.ErrClosed), errors.Is(err, watchcache.ErrRemoved):
		return New(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "the server is shutting down or the resource is no longer served")
	}
	return Internal(err)
}

// Unprocessable is kube-apiserver's Unprocessable Status.
func Unprocessable(res *registry.Resource, name string, err error) *StatusError {
	e := New(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "the patch cannot be applied: "+err.Error())
	e.Status.Details = &metav1.StatusDetails{Name: name, Group: res.Group, Kind: res.Kind,
		Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: err.Error()}}}
	return e
}

// StoreTooLarge is kube-apiserver's answer when etcd refuses an
// object over its request limit: etcd's error passed on as a 500 with
// no reason. Clients (Helm among them) look for this message.
func StoreTooLarge() *StatusError {
	return New(http.StatusInternalServerError, metav1.StatusReasonUnknown, "etcdserver: request is too large")
}

// RequestTooLarge is kube's 413 for a request over one of its bounds.
func RequestTooLarge(format string, args ...any) *StatusError {
	return New(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
		"Request entity too large: "+fmt.Sprintf(format, args...))
}

// JSONPatchRejected is kube-apiserver's answer to a JSON patch that
// does not apply, its copies past the copy limit included: a bare 422
// that names neither the object nor the operation.
func JSONPatchRejected() *StatusError {
	e := New(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "the server rejected our request due to an error in our request")
	e.Status.Details = &metav1.StatusDetails{}
	return e
}

// QuotaExceeded answers a create or update the store refused for its
// quota. kube-apiserver passes etcd's "database space exceeded" through as
// a 500 with no reason; Setpoint answers the same code and reason, with a
// message that says what still works and how the store gets back under.
func QuotaExceeded(q *storage.QuotaError) *StatusError {
	return New(http.StatusInternalServerError, "", fmt.Sprintf(
		"database space exceeded: %d bytes in use, quota %d bytes (--quota-backend-bytes); "+
			"creates and updates are refused until deletes and compaction of old history bring usage under the quota, "+
			"and deletes still work", q.Used, q.Quota))
}

// NamespaceTerminating refuses a create in a namespace being deleted, as
// kube-apiserver's NamespaceLifecycle admission words it.
func NamespaceTerminating(ns string, gr schema.GroupResource, name string) *StatusError {
	e := New(http.StatusForbidden, metav1.StatusReasonForbidden,
		"unable to create new content in namespace "+ns+" because it is being terminated")
	e.Status.Details = &metav1.StatusDetails{Name: name, Kind: gr.String(),
		Causes: []metav1.StatusCause{{Type: "NamespaceTerminating", Message: "namespace " + ns + " is being terminated", Field: "metadata.namespace"}}}
	return e
}

// Unknown is how kube-apiserver answers an error that is not a Status
// (a REST storage returning a plain error): a 500 with no reason and
// the error's text.
func Unknown(msg string) *StatusError {
	return New(http.StatusInternalServerError, metav1.StatusReasonUnknown, msg)
}

// TooManyRequests is kube-apiserver's TooManyRequests Status for e,
// with its retry delay and cause.
func TooManyRequests(e *registry.TooManyRequestsError) *StatusError {
	se := New(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, e.Message)
	se.Status.Details = &metav1.StatusDetails{RetryAfterSeconds: e.RetryAfterSeconds}
	if e.CauseType != "" {
		se.Status.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseType(e.CauseType), Message: e.CauseMessage}}
	}
	return se
}

package apiserver

import (
	"errors"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// StatusError is an API error: it is written to the client as a
// Kubernetes Status object.
type StatusError struct {
	Status metav1.Status
}

func (e *StatusError) Error() string { return e.Status.Message }

func newStatus(code int32, reason metav1.StatusReason, msg string) *StatusError {
	return &StatusError{Status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: msg,
	}}
}

func withDetails(e *StatusError, gr schema.GroupResource, name string) *StatusError {
	e.Status.Details = &metav1.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return e
}

func errNotFound(gr schema.GroupResource, name string) *StatusError {
	return withDetails(newStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", gr.String(), name)), gr, name)
}

func errAlreadyExists(gr schema.GroupResource, name string) *StatusError {
	return withDetails(newStatus(http.StatusConflict, metav1.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", gr.String(), name)), gr, name)
}

func errConflict(gr schema.GroupResource, name, why string) *StatusError {
	return withDetails(newStatus(http.StatusConflict, metav1.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", gr.String(), name, why)), gr, name)
}

const staleObject = "the object has been modified; please apply your changes to the latest version and try again"

func errInvalid(kind schema.GroupKind, name string, errs field.ErrorList) *StatusError {
	e := newStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		fmt.Sprintf("%s %q is invalid: %s", kind.String(), name, errs.ToAggregate().Error()))
	e.Status.Details = &metav1.StatusDetails{Name: name, Group: kind.Group, Kind: kind.Kind}
	for _, fe := range errs {
		e.Status.Details.Causes = append(e.Status.Details.Causes, metav1.StatusCause{
			Type: metav1.CauseType(fe.Type), Message: fe.ErrorBody(), Field: fe.Field,
		})
	}
	return e
}

func errBadRequest(format string, args ...any) *StatusError {
	return newStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf(format, args...))
}

func errExpired(msg string) *StatusError {
	return newStatus(http.StatusGone, metav1.StatusReasonExpired, msg)
}

func errTooLargeRV() *StatusError {
	e := newStatus(http.StatusGatewayTimeout, metav1.StatusReasonTimeout,
		"Too large resource version")
	e.Status.Details = &metav1.StatusDetails{
		Causes:            []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
		RetryAfterSeconds: 1,
	}
	return e
}

// errMethodNotAllowed is kube-apiserver's answer to a method no route
// serves at a path: a fixed message and empty details.
func errMethodNotAllowed() *StatusError {
	e := newStatus(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource")
	e.Status.Details = &metav1.StatusDetails{}
	return e
}

func errUnsupportedMediaType(got string, accepted []string) *StatusError {
	return newStatus(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s (got %q)", joinComma(accepted), got))
}

func errNotAcceptable(accepted []string) *StatusError {
	return newStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: "+joinComma(accepted))
}

// errForbidden refuses a request on one object, worded as kube-apiserver's
// admission refusals are.
func errForbidden(gr schema.GroupResource, name, reason string) *StatusError {
	return withDetails(newStatus(http.StatusForbidden, metav1.StatusReasonForbidden,
		fmt.Sprintf("%s %q is forbidden: %s", gr.String(), name, reason)), gr, name)
}

func errUnauthorized() *StatusError {
	return newStatus(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized")
}

func errInternal(err error) *StatusError {
	return newStatus(http.StatusInternalServerError, metav1.StatusReasonInternalError,
		"Internal error occurred: "+err.Error())
}

func errPathNotFound() *StatusError {
	return newStatus(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
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

// toStatus maps any error to the Status sent for it. Storage and
// registry errors are typed; anything else is an internal error.
func toStatus(err error, gr schema.GroupResource, name string) *StatusError {
	var se *StatusError
	var strict *registry.StrictError
	var compacted *storage.CompactedError
	var quota *storage.QuotaError
	var forbidden *registry.ForbiddenError
	switch {
	case errors.As(err, &se):
		return se
	case errors.As(err, &forbidden):
		return errForbidden(gr, name, forbidden.Reason)
	case errors.As(err, &strict):
		return errBadRequest("%s", strict.Error())
	case errors.Is(err, registry.ErrDecode):
		return errBadRequest("%s", err.Error())
	case errors.Is(err, storage.ErrNotFound):
		return errNotFound(gr, name)
	case errors.Is(err, storage.ErrAlreadyExists):
		return errAlreadyExists(gr, name)
	case errors.Is(err, storage.ErrConflict):
		return errConflict(gr, name, staleObject)
	case errors.As(err, &compacted):
		return errExpired(fmt.Sprintf("too old resource version: %d (%d)", compacted.Requested, compacted.Oldest))
	case errors.Is(err, storage.ErrCompacted), errors.Is(err, watchcache.ErrExpired):
		return errExpired("too old resource version")
	case errors.Is(err, storage.ErrInvalidContinue):
		return errBadRequest("continue key is not valid: %v", err)
	case errors.Is(err, storage.ErrFutureRevision):
		return errTooLargeRV()
	case errors.As(err, &quota):
		return errQuotaExceeded(quota)
	case errors.Is(err, storage.ErrInvalidKey):
		return errBadRequest("%v", err)
	case errors.Is(err, storage.ErrClosed), errors.Is(err, watchcache.ErrRemoved):
		return newStatus(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, "the server is shutting down or the resource is no longer served")
	}
	return errInternal(err)
}

func errUnprocessable(res *registry.Resource, name string, err error) *StatusError {
	e := newStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "the patch cannot be applied: "+err.Error())
	e.Status.Details = &metav1.StatusDetails{Name: name, Group: res.Group, Kind: res.Kind,
		Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: err.Error()}}}
	return e
}

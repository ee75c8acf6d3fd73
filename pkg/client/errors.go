package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Errors the client returns before or after talking to the server; check
// them with errors.Is. Server answers are *StatusError instead.
var (
	// ErrMissingName: the object or key has no name where one is needed.
	ErrMissingName = errors.New("client: a name is required")
	// ErrMissingNamespace: a namespaced object has no namespace.
	ErrMissingNamespace = errors.New("client: a namespace is required for a namespaced resource")
	// ErrMissingKind: an unstructured or metadata-only object does not
	// say its apiVersion and kind, so there is no resource to send it to.
	ErrMissingKind = errors.New("client: the object has no apiVersion or kind")
	// ErrMetadataOnly: metadata-only objects can be read, patched and
	// deleted, but not created or replaced.
	ErrMetadataOnly = errors.New("client: a metadata-only object cannot be created or updated")
	// ErrDecode: an answer or watch event could not be decoded.
	ErrDecode = errors.New("client: cannot decode the server's answer")
)

// StatusError is a non-2xx answer from the server. ErrStatus is the
// server's Status, or one synthesized from the HTTP code when the body
// was not a Status. It also satisfies apimachinery's APIStatus, so
// k8s.io/apimachinery/pkg/api/errors helpers work on it too.
type StatusError struct {
	ErrStatus metav1.Status
}

func (e *StatusError) Error() string {
	if e.ErrStatus.Message != "" {
		return e.ErrStatus.Message
	}
	return fmt.Sprintf("the server responded with status %d (%s)", e.ErrStatus.Code, e.ErrStatus.Reason)
}

// Status returns the server's Status.
func (e *StatusError) Status() metav1.Status { return e.ErrStatus }

// reasonForCode is the reason a bare HTTP code stands for, as
// kube-apiserver would have sent it.
func reasonForCode(code int) metav1.StatusReason {
	switch code {
	case http.StatusBadRequest:
		return metav1.StatusReasonBadRequest
	case http.StatusUnauthorized:
		return metav1.StatusReasonUnauthorized
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	case http.StatusNotFound:
		return metav1.StatusReasonNotFound
	case http.StatusMethodNotAllowed:
		return metav1.StatusReasonMethodNotAllowed
	case http.StatusNotAcceptable:
		return metav1.StatusReasonNotAcceptable
	case http.StatusConflict:
		return metav1.StatusReasonConflict
	case http.StatusGone:
		return metav1.StatusReasonGone
	case http.StatusRequestEntityTooLarge:
		return metav1.StatusReasonRequestEntityTooLarge
	case http.StatusUnsupportedMediaType:
		return metav1.StatusReasonUnsupportedMediaType
	case http.StatusUnprocessableEntity:
		return metav1.StatusReasonInvalid
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests
	case http.StatusInternalServerError:
		return metav1.StatusReasonInternalError
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout
	}
	return metav1.StatusReasonUnknown
}

// synthesizedStatus stands in for an answer whose body is not a Status
// (a proxy's HTML page, a plain-text 502): the code still tells what
// happened, and the start of the body says the rest.
func synthesizedStatus(code int, body []byte) metav1.Status {
	msg := strings.TrimSpace(string(body))
	if len(msg) > 512 {
		msg = msg[:512] + "..."
	}
	if msg == "" {
		msg = http.StatusText(code)
	}
	return metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     int32(code),
		Reason:   reasonForCode(code),
		Message:  fmt.Sprintf("the server responded with status %d: %s", code, msg),
	}
}

// reasonAndCode returns the Status reason and code of err, if it is (or
// wraps) a *StatusError.
func reasonAndCode(err error) (metav1.StatusReason, int32) {
	var se *StatusError
	if errors.As(err, &se) {
		return se.ErrStatus.Reason, se.ErrStatus.Code
	}
	return metav1.StatusReasonUnknown, 0
}

// ReasonForError returns the Status reason of err, or StatusReasonUnknown
// when err is not a server answer.
func ReasonForError(err error) metav1.StatusReason {
	r, _ := reasonAndCode(err)
	return r
}

// is reports whether err carries reason, or (for a server that sent no
// reason this client knows) the code that goes with it.
func is(err error, reason metav1.StatusReason, code int) bool {
	r, c := reasonAndCode(err)
	if r == reason {
		return true
	}
	return c == int32(code) && !knownReason(r)
}

func knownReason(r metav1.StatusReason) bool {
	switch r {
	case metav1.StatusReasonUnauthorized, metav1.StatusReasonForbidden, metav1.StatusReasonNotFound,
		metav1.StatusReasonAlreadyExists, metav1.StatusReasonConflict, metav1.StatusReasonGone,
		metav1.StatusReasonInvalid, metav1.StatusReasonServerTimeout, metav1.StatusReasonStoreReadError,
		metav1.StatusReasonTimeout, metav1.StatusReasonTooManyRequests, metav1.StatusReasonBadRequest,
		metav1.StatusReasonMethodNotAllowed, metav1.StatusReasonNotAcceptable,
		metav1.StatusReasonRequestEntityTooLarge, metav1.StatusReasonUnsupportedMediaType,
		metav1.StatusReasonInternalError, metav1.StatusReasonExpired, metav1.StatusReasonServiceUnavailable:
		return true
	}
	return false
}

// IsNotFound: the object (or the resource) does not exist (404).
func IsNotFound(err error) bool { return is(err, metav1.StatusReasonNotFound, http.StatusNotFound) }

// IsAlreadyExists: a create named an object that exists (409).
func IsAlreadyExists(err error) bool { return ReasonForError(err) == metav1.StatusReasonAlreadyExists }

// IsConflict: a write lost a race or failed a precondition (409).
func IsConflict(err error) bool { return is(err, metav1.StatusReasonConflict, http.StatusConflict) }

// IsInvalid: the object failed validation (422).
func IsInvalid(err error) bool {
	return is(err, metav1.StatusReasonInvalid, http.StatusUnprocessableEntity)
}

// IsGone: the server no longer has what was asked for (410), whether it
// says Gone or Expired. A reflector relists on either.
func IsGone(err error) bool {
	r, c := reasonAndCode(err)
	return r == metav1.StatusReasonGone || r == metav1.StatusReasonExpired || c == http.StatusGone
}

// IsResourceExpired: a resourceVersion or continue token is too old
// (410 Expired).
func IsResourceExpired(err error) bool { return ReasonForError(err) == metav1.StatusReasonExpired }

// IsForbidden: the request was understood and refused (403).
func IsForbidden(err error) bool { return is(err, metav1.StatusReasonForbidden, http.StatusForbidden) }

// IsUnauthorized: the credentials were missing or wrong (401).
func IsUnauthorized(err error) bool {
	return is(err, metav1.StatusReasonUnauthorized, http.StatusUnauthorized)
}

// IsBadRequest: the request itself was malformed (400).
func IsBadRequest(err error) bool {
	return is(err, metav1.StatusReasonBadRequest, http.StatusBadRequest)
}

// IsTimeout: the server gave up waiting (504), including for a
// resourceVersion it has not reached.
func IsTimeout(err error) bool { return is(err, metav1.StatusReasonTimeout, http.StatusGatewayTimeout) }

// IsTooManyRequests: the server throttled the request (429) and the
// client's bounded retries did not get through.
func IsTooManyRequests(err error) bool {
	r, c := reasonAndCode(err)
	return r == metav1.StatusReasonTooManyRequests || c == http.StatusTooManyRequests
}

// IsTooLargeResourceVersion: a read asked for a resourceVersion newer
// than the server has seen (504 with cause ResourceVersionTooLarge).
func IsTooLargeResourceVersion(err error) bool {
	var se *StatusError
	if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusGatewayTimeout {
		return false
	}
	if d := se.ErrStatus.Details; d != nil {
		for _, c := range d.Causes {
			if c.Type == metav1.CauseTypeResourceVersionTooLarge {
				return true
			}
		}
	}
	return strings.Contains(se.ErrStatus.Message, "Too large resource version")
}

// NewNotFound is the error a server gives for a missing object, for
// readers that answer from elsewhere (a cache) the way the server would.
func NewNotFound(gr schema.GroupResource, name string) *StatusError {
	return &StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: name},
		Message: fmt.Sprintf("%s %q not found", gr.String(), name),
	}}
}

// HasStatusCause reports whether err is a Status whose details carry a
// cause of type t, such as the NamespaceTerminating cause of a create
// refused in a namespace being deleted.
func HasStatusCause(err error, t metav1.CauseType) bool {
	se, ok := errors.AsType[*StatusError](err)
	if !ok || se.ErrStatus.Details == nil {
		return false
	}
	for _, c := range se.ErrStatus.Details.Causes {
		if c.Type == t {
			return true
		}
	}
	return false
}

package registry

import (
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ErrDecode marks a request body that is not a well-formed object of the
// resource's kind; the server answers 400 BadRequest.
var ErrDecode = errors.New("cannot decode object")

// StrictError lists the unknown or duplicate fields of a body decoded
// with fieldValidation=Strict; the server answers 400 BadRequest.
type StrictError struct {
	Problems []string
}

func (e *StrictError) Error() string {
	return "strict decoding error: " + strings.Join(e.Problems, ", ")
}

// BadRequestError refuses a request for a reason of the kind's own that
// the client can fix (a container name that is not the pod's); the
// server answers 400 BadRequest with Message.
type BadRequestError struct {
	Message string
}

func (e *BadRequestError) Error() string { return e.Message }

// NotFoundError refuses a request because an object it needs, other
// than the one it is about, does not exist (the role a binding refers
// to): 404 NotFound naming Name under Resource or, when Resource is
// zero, under the request's resource, as kube-apiserver words it.
type NotFoundError struct {
	Resource schema.GroupResource
	Name     string
}

func (e *NotFoundError) Error() string { return e.Name + " not found" }

// ConflictError refuses a request that the state of an object it names
// contradicts (a token bound to a pod by a stale UID): 409 Conflict,
// "Operation cannot be fulfilled on <Resource> <Name>: <Message>".
type ConflictError struct {
	Resource schema.GroupResource
	Name     string
	Message  string
}

func (e *ConflictError) Error() string { return e.Message }

// InvalidError refuses the object of a kind that answers a create itself
// (a Creater) with the causes in Errs: 422 Invalid about Kind and Name,
// either of which may be empty, as kube-apiserver's access reviews leave
// them.
type InvalidError struct {
	Kind schema.GroupKind
	Name string
	Errs field.ErrorList
}

func (e *InvalidError) Error() string { return e.Errs.ToAggregate().Error() }

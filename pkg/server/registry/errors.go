package registry

import (
	"errors"
	"strings"
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

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

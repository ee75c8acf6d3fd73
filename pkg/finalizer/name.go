package finalizer

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// ErrInvalidName is wrapped by the errors about a finalizer name that is
// not a domain-qualified name.
var ErrInvalidName = errors.New("invalid finalizer name")

// ValidateName checks that name is what the API server accepts as a
// finalizer and has a domain prefix: "example.com/cleanup". The server
// only warns about a name without a prefix; this package refuses it,
// since such names are where two controllers collide.
func ValidateName(name string) error {
	if msgs := validation.IsQualifiedName(name); len(msgs) > 0 {
		return fmt.Errorf("%w %q: %s", ErrInvalidName, name, strings.Join(msgs, "; "))
	}
	if !strings.Contains(name, "/") {
		return fmt.Errorf("%w %q: it needs a domain prefix, as in \"example.com/%s\"", ErrInvalidName, name, name)
	}
	return nil
}

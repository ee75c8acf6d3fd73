package rbac

import (
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// RoleNotFoundError is a binding's reference to a Role or ClusterRole
// that does not exist. It is a resolution error: the binding grants
// nothing, other bindings still do.
type RoleNotFoundError struct {
	// Kind is "Role" or "ClusterRole".
	Kind string
	// Namespace is the Role's (the binding's) namespace; empty for a
	// ClusterRole.
	Namespace string
	Name      string
	// resource, when set, is the plural resource the message names
	// instead of the role's kind: kube's registry words a role missing
	// during an escalation check after the resource being written.
	resource string
}

func (e *RoleNotFoundError) Error() string {
	res := e.resource
	if res == "" {
		res = strings.ToLower(e.Kind)
	}
	return fmt.Sprintf("%s.rbac.authorization.k8s.io %q not found", res, e.Name)
}

// UnsupportedRoleRefError is a binding whose roleRef names a kind other
// than Role or ClusterRole.
type UnsupportedRoleRefError struct {
	Kind string
}

func (e *UnsupportedRoleRefError) Error() string {
	return fmt.Sprintf("unsupported role reference kind: %q", e.Kind)
}

// ResolutionError gathers the resolution errors met while collecting a
// user's rules. Its message is kube's aggregate wording: a single error
// as it is, several as "[a, b]" with repeated messages once.
type ResolutionError struct {
	Errs []error
}

func (e *ResolutionError) Error() string {
	var msgs []string
	for _, err := range e.Errs {
		if m := err.Error(); !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// Unwrap lets errors.As reach each gathered error.
func (e *ResolutionError) Unwrap() []error { return e.Errs }

// resolutionError returns errs as one error, or nil when there are none.
func resolutionError(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return &ResolutionError{Errs: errs}
}

// EscalationError refuses a grant of rules its author does not hold.
// The server answers it with 403 Forbidden; its message is kube's.
type EscalationError struct {
	User authenticationv1.UserInfo
	// Missing are the rules not held, compacted and in kube's compact
	// wording, sorted.
	Missing []string
	// Resolution is the error met while resolving the author's own
	// rules, if any: it may be why a rule looks missing.
	Resolution error
}

func (e *EscalationError) Error() string {
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		e.User.Username, e.User.Groups, strings.Join(e.Missing, "\n"))
	if e.Resolution != nil {
		// Kube formats a one-element list of its aggregate error.
		msg += fmt.Sprintf("; resolution errors: %v", []error{e.Resolution})
	}
	return msg
}

// Unwrap exposes the resolution error.
func (e *EscalationError) Unwrap() error { return e.Resolution }

// LoadError is the Authorizer's failure to load the RBAC objects: it
// has no policy to decide by, so it allows nothing.
type LoadError struct {
	Err error
}

func (e *LoadError) Error() string { return "loading RBAC policy: " + e.Err.Error() }

// Unwrap exposes the loader's error.
func (e *LoadError) Unwrap() error { return e.Err }

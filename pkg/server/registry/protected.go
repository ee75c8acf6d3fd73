package registry

import "slices"

// DeleteGuard is implemented by kinds some of whose objects may never be
// deleted. The server asks before it looks the object up, as
// kube-apiserver's admission does.
type DeleteGuard interface {
	// CheckDelete returns a *ForbiddenError when name may not be deleted.
	CheckDelete(name string) error
}

// ForbiddenError refuses a request for a reason of the kind's own; the
// server answers 403 Forbidden with Reason as the message's tail.
type ForbiddenError struct {
	Reason string
}

func (e *ForbiddenError) Error() string { return e.Reason }

// ImmortalNamespaces are the namespaces kube-apiserver refuses to delete
// (its NamespaceLifecycle admission): clients and the server's own
// controllers depend on them. kube-node-lease may be deleted; the
// server recreates it, as it recreates the others should they vanish.
var ImmortalNamespaces = []string{"default", "kube-system", "kube-public"}

// CheckDelete refuses the immortal namespaces.
func (namespaceStrategy) CheckDelete(name string) error {
	if slices.Contains(ImmortalNamespaces, name) {
		return &ForbiddenError{Reason: "this namespace may not be deleted"}
	}
	return nil
}

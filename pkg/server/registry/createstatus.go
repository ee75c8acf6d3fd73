package registry

// CreateStatusKeeper is implemented by kinds with a status subresource
// whose create still takes the client's status, as kube-apiserver's
// Nodes do: a kubelet registers its node with its capacity and
// addresses in one write.
type CreateStatusKeeper interface {
	KeepsStatusOnCreate()
}

// KeepsStatusOnCreate reports whether a create keeps the status the
// client sent although the kind has a status subresource.
func (r *Resource) KeepsStatusOnCreate() bool {
	_, ok := r.Strategy.(CreateStatusKeeper)
	return ok
}

package registry

// StatusStrategy is implemented by kinds whose status subresource keeps
// more of a write than .status. Without it a status write changes
// .status alone (and managedFields), the rule kube-apiserver applies to
// custom resources.
type StatusStrategy interface {
	// PrepareForStatusUpdate adjusts obj, the object a status write
	// asks for, given the stored old; the generic rules for
	// server-owned metadata apply afterwards.
	PrepareForStatusUpdate(obj, old map[string]any)
}

// PrepareForStatusUpdate keeps the spec: kube-apiserver's namespace
// status writes change status and metadata (labels, annotations,
// finalizers), not spec.finalizers, which only finalize changes.
func (namespaceStrategy) PrepareForStatusUpdate(obj, old map[string]any) {
	keepSpec(obj, old)
}

// PrepareForStatusUpdate keeps the spec. kube-apiserver means to keep a
// CRD's metadata too but, as served, keeps the metadata of the write;
// clients see that, so it is what the server does.
func (crdStrategy) PrepareForStatusUpdate(obj, old map[string]any) {
	keepSpec(obj, old)
}

func keepSpec(obj, old map[string]any) {
	if spec, ok := old["spec"]; ok {
		obj["spec"] = spec
	} else {
		delete(obj, "spec")
	}
}

package registry

import "k8s.io/apimachinery/pkg/util/validation/field"

// StatusStrategy is implemented by kinds whose status subresource keeps
// more of a write than .status. Without it a status write changes
// .status alone (and managedFields), the rule kube-apiserver applies to
// custom resources.
type StatusStrategy interface {
	// PrepareForStatusUpdate adjusts obj, the object a status write
	// asks for, given the stored old, and returns what is invalid in
	// it; the generic rules for server-owned metadata apply afterwards.
	PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList
}

// PrepareForStatusUpdate keeps the spec: kube-apiserver's namespace
// status writes change status and metadata (labels, annotations,
// finalizers), not spec.finalizers, which only finalize changes.
// The phase says whether the namespace is being deleted, so it must
// agree with deletionTimestamp; an empty phase defaults to Active, as
// kube-apiserver defaults it when it decodes the write.
func (namespaceStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	status := nestedMap(obj, true, "status")
	phase, _ := status["phase"].(string)
	if phase == "" {
		phase = "Active"
		status["phase"] = phase
	}
	deleting := nestedMap(old, false, "metadata")["deletionTimestamp"] != nil
	switch {
	case !deleting && phase != "Active":
		return field.ErrorList{field.Invalid(field.NewPath("status", "Phase"), phase, "may only be 'Active' if `deletionTimestamp` is empty")}
	case deleting && phase != "Terminating":
		return field.ErrorList{field.Invalid(field.NewPath("status", "Phase"), phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")}
	}
	return nil
}

// PrepareForStatusUpdate keeps the spec. kube-apiserver means to keep a
// CRD's metadata too but, as served, keeps the metadata of the write;
// clients see that, so it is what the server does.
func (crdStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	return nil
}

func keepSpec(obj, old map[string]any) {
	if spec, ok := old["spec"]; ok {
		obj["spec"] = spec
	} else {
		delete(obj, "spec")
	}
}

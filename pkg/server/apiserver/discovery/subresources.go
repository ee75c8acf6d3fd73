package discovery

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// subresource is one subresource as discovery lists it.
type subresource struct {
	name  registry.Subresource
	kind  metav1.GroupVersionKind // empty Kind: the resource's own
	verbs metav1.Verbs
}

// kindSubresources are the subresources beyond status and scale, in the
// order kube-apiserver lists them (by name), each with the kind its
// requests and answers carry, as kube-apiserver describes them.
var kindSubresources = []subresource{
	{registry.SubresourceApproval, metav1.GroupVersionKind{}, metav1.Verbs{"get", "patch", "update"}},
	{registry.SubresourceAttach, metav1.GroupVersionKind{Version: "v1", Kind: "PodAttachOptions"}, metav1.Verbs{"create", "get"}},
	{registry.SubresourceBinding, metav1.GroupVersionKind{Version: "v1", Kind: "Binding"}, metav1.Verbs{"create"}},
	{registry.SubresourceEphemeralContainers, metav1.GroupVersionKind{}, metav1.Verbs{"get", "patch", "update"}},
	// kubectl drain evicts only when discovery lists pods/eviction;
	// otherwise it deletes.
	{registry.SubresourceEviction, metav1.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}, metav1.Verbs{"create"}},
	{registry.SubresourceExec, metav1.GroupVersionKind{Version: "v1", Kind: "PodExecOptions"}, metav1.Verbs{"create", "get"}},
	{registry.SubresourceLog, metav1.GroupVersionKind{}, metav1.Verbs{"get"}},
	{registry.SubresourcePortForward, metav1.GroupVersionKind{Version: "v1", Kind: "PodPortForwardOptions"}, metav1.Verbs{"create", "get"}},
	{registry.SubresourceToken, metav1.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest"}, metav1.Verbs{"create"}},
}

// servedSubresources are r's subresources from kindSubresources, with
// the resource's own kind filled in where they carry it.
func servedSubresources(r *registry.Resource) []subresource {
	var out []subresource
	for _, s := range kindSubresources {
		if !r.ServesSubresource(s.name) {
			continue
		}
		if s.kind.Kind == "" {
			s.kind = metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		}
		out = append(out, s)
	}
	return out
}

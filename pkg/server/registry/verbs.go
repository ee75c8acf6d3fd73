package registry

// Verb is what a request does to a resource, as kube-apiserver names it
// in discovery, audit and metrics.
type Verb string

// The verbs of a stored resource.
const (
	VerbGet              Verb = "get"
	VerbList             Verb = "list"
	VerbWatch            Verb = "watch"
	VerbCreate           Verb = "create"
	VerbUpdate           Verb = "update"
	VerbPatch            Verb = "patch"
	VerbDelete           Verb = "delete"
	VerbDeleteCollection Verb = "deletecollection"
)

// ReadOnly reports whether the verb changes nothing.
func (v Verb) ReadOnly() bool { return v == VerbGet || v == VerbList || v == VerbWatch }

// Subresource is the part of an object a request addresses: the whole
// object ("") or one of the subresources the server knows.
type Subresource string

// The subresources: status splits .status from the rest of the object;
// scale reads and writes replicas as an autoscaling/v1 Scale; finalize
// is the one way to change a Namespace's spec.finalizers; binding
// assigns a Pod to a Node.
const (
	SubresourceNone     Subresource = ""
	SubresourceStatus   Subresource = "status"
	SubresourceScale    Subresource = "scale"
	SubresourceFinalize Subresource = "finalize"
	SubresourceBinding  Subresource = "binding"
	// SubresourceEphemeralContainers adds debugging containers to a
	// running Pod (kubectl debug).
	SubresourceEphemeralContainers Subresource = "ephemeralcontainers"
	// SubresourceEviction deletes a Pod unless a disruption budget
	// forbids it.
	SubresourceEviction Subresource = "eviction"
	// The pod subresources that reach a running container.
	SubresourceLog         Subresource = "log"
	SubresourceExec        Subresource = "exec"
	SubresourceAttach      Subresource = "attach"
	SubresourcePortForward Subresource = "portforward"
	// SubresourceToken issues a token for a ServiceAccount (a
	// TokenRequest), storing nothing.
	SubresourceToken Subresource = "token"
	// SubresourceApproval approves or denies a CertificateSigningRequest:
	// its writes change the request's conditions and nothing else.
	SubresourceApproval Subresource = "approval"
)

// Connects reports whether the subresource reaches what the object
// runs (kube's connect verbs) rather than the object itself.
func (s Subresource) Connects() bool {
	switch s {
	case SubresourceLog, SubresourceExec, SubresourceAttach, SubresourcePortForward:
		return true
	}
	return false
}

// Creates reports whether a request creates through the subresource
// (POST on an object's subresource) rather than reading or replacing
// the object.
func (s Subresource) Creates() bool {
	return s == SubresourceBinding || s == SubresourceEviction || s == SubresourceToken || s.Connects() && s != SubresourceLog
}

// ServesSubresource reports whether the resource serves sub.
func (r *Resource) ServesSubresource(sub Subresource) bool {
	switch sub {
	case SubresourceNone:
		return true
	case SubresourceStatus:
		return r.StatusSubresource
	case SubresourceScale:
		return r.Scale != nil
	case SubresourceFinalize:
		_, ok := r.Strategy.(FinalizeStrategy)
		return ok
	case SubresourceBinding:
		_, ok := r.Strategy.(BindStrategy)
		return ok
	case SubresourceEphemeralContainers:
		_, ok := r.Strategy.(EphemeralContainersStrategy)
		return ok
	case SubresourceEviction:
		_, ok := r.Strategy.(EvictStrategy)
		return ok
	case SubresourceLog, SubresourceExec, SubresourceAttach, SubresourcePortForward:
		_, ok := r.Strategy.(ConnectStrategy)
		return ok
	case SubresourceToken:
		_, ok := r.Strategy.(TokenStrategy)
		return ok
	case SubresourceApproval:
		_, ok := r.Strategy.(ApprovalStrategy)
		return ok
	}
	return false
}

package registry

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podSpecErrors is kube's ValidatePodSpec for a new object, with kube's
// paths, types and messages, in kube's order: volumes and their sources
// (podspec_volumes.go), containers with their ports, env, mounts,
// resources, probes and security contexts, restart and DNS policy, the
// pod's security context and OS rules (podspec_security.go, Windows
// options and host-process pods in podspec_winsecurity.go), pull
// secrets, readiness and scheduling gates, overhead (podspec_refs.go),
// affinity (podspec_affinity.go), DNS config, hostname and host aliases
// (podspec_dns.go), topology spread (podspec_spread.go), names and
// tolerations. Pod templates of every kind get the same rules.
//
// Not ported: the own rules of in-tree cloud and network volume
// sources and CSI (the one-source rule covers them), pod-level
// resources, resize policies, resource claims, and kube's
// --allow-privileged policy (Setpoint allows privileged containers, as
// kubeadm and kind clusters do). Sources behind gates v1.33 leaves off
// are dropped before validation (podspec_gates.go).
func podSpecErrors(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	return specErrors(spec, nil, path)
}

// ownPodSpecErrors is podSpecErrors for a Pod's own spec, which kube
// checks further than a template's: the claims of ephemeral volumes,
// named after the pod, are valid names that no other volume claims.
func ownPodSpecErrors(spec *corev1.PodSpec, pod string, path *field.Path) field.ErrorList {
	return specErrors(spec, &podOfSpec{name: pod}, path)
}

// podOfSpec is the Pod a spec belongs to; nil for a template's.
type podOfSpec struct {
	name string
}

func specErrors(spec *corev1.PodSpec, pod *podOfSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.TerminationGracePeriodSeconds == nil {
		errs = append(errs, field.Required(path.Child("terminationGracePeriodSeconds"), ""))
	}
	vols, verrs := volumeErrors(spec.Volumes, pod, path.Child("volumes"))
	errs = append(errs, verrs...)
	users := hostUsers(spec)
	errs = append(errs, containersErrors(spec.Containers, vols, users, path.Child("containers"))...)
	errs = append(errs, initContainersErrors(spec.InitContainers, spec.Containers, vols, users, path.Child("initContainers"))...)
	errs = append(errs, hostNetworkPortErrors(spec, path)...)
	errs = append(errs, oneOf(path.Child("restartPolicy"), string(spec.RestartPolicy), "Always", "OnFailure", "Never")...)
	errs = append(errs, oneOf(path.Child("dnsPolicy"), string(spec.DNSPolicy), "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")...)
	errs = append(errs, metavalidation.ValidateLabels(spec.NodeSelector, path.Child("nodeSelector"))...)
	errs = append(errs, podSecurityErrors(spec, path.Child("securityContext"))...)
	errs = append(errs, pullSecretErrors(spec.ImagePullSecrets, path.Child("imagePullSecrets"))...)
	errs = append(errs, affinityErrors(spec.Affinity, path.Child("affinity"))...)
	errs = append(errs, dnsConfigErrors(spec, path.Child("dnsConfig"))...)
	errs = append(errs, readinessGateErrors(spec.ReadinessGates, path.Child("readinessGates"))...)
	errs = append(errs, schedulingGateErrors(spec.SchedulingGates, path.Child("schedulingGates"))...)
	errs = append(errs, spreadErrors(spec.TopologySpreadConstraints, path.Child("topologySpreadConstraints"))...)
	errs = append(errs, hostProcessErrors(spec, path)...)
	errs = append(errs, hostUsersErrors(spec, path)...)
	if spec.ServiceAccountName != "" {
		errs = append(errs, dns1123SubdomainErrors(spec.ServiceAccountName, path.Child("serviceAccountName"))...)
	}
	if spec.NodeName != "" {
		errs = append(errs, dns1123SubdomainErrors(spec.NodeName, path.Child("nodeName"))...)
	}
	if v := spec.ActiveDeadlineSeconds; v != nil && (*v < 1 || *v > 1<<31-1) {
		errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), *v, validation.InclusiveRangeError(1, 1<<31-1)))
	}
	if spec.Hostname != "" {
		errs = append(errs, dns1123LabelErrors(spec.Hostname, path.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, dns1123LabelErrors(spec.Subdomain, path.Child("subdomain"))...)
	}
	errs = append(errs, tolerationErrors(spec.Tolerations, path.Child("tolerations"))...)
	errs = append(errs, hostAliasErrors(spec.HostAliases, path.Child("hostAliases"))...)
	if spec.PriorityClassName != "" {
		errs = append(errs, dns1123SubdomainErrors(spec.PriorityClassName, path.Child("priorityClassName"))...)
	}
	if spec.RuntimeClassName != nil {
		errs = append(errs, dns1123SubdomainErrors(*spec.RuntimeClassName, path.Child("runtimeClassName"))...)
	}
	if spec.PreemptionPolicy != nil {
		errs = append(errs, oneOf(path.Child("preemptionPolicy"), string(*spec.PreemptionPolicy), "PreemptLowerPriority", "Never")...)
	}
	errs = append(errs, overheadErrors(spec.Overhead, path.Child("overhead"))...)
	return append(errs, osErrors(spec, path)...)
}

// oneOf is kube's Required-or-NotSupported check of an enum field.
func oneOf(path *field.Path, v string, allowed ...string) field.ErrorList {
	switch {
	case v == "":
		return field.ErrorList{field.Required(path, "")}
	case !sets.New(allowed...).Has(v):
		return field.ErrorList{field.NotSupported(path, v, allowed)}
	}
	return nil
}

func containersErrors(cs []corev1.Container, vols sets.Set[string], hostUsers bool, path *field.Path) field.ErrorList {
	if len(cs) == 0 {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	names := sets.New[string]()
	for i := range cs {
		c := &cs[i]
		p := path.Index(i)
		errs = append(errs, containerErrors(c, vols, hostUsers, p)...)
		if names.Has(c.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		}
		names.Insert(c.Name)
		errs = append(errs, probeErrors(c.LivenessProbe, p.Child("livenessProbe"))...)
		errs = append(errs, probeErrors(c.ReadinessProbe, p.Child("readinessProbe"))...)
		errs = append(errs, probeErrors(c.StartupProbe, p.Child("startupProbe"))...)
		if c.ReadinessProbe != nil && c.ReadinessProbe.TerminationGracePeriodSeconds != nil {
			errs = append(errs, field.Invalid(p.Child("readinessProbe", "terminationGracePeriodSeconds"), c.ReadinessProbe.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
		}
		if c.RestartPolicy != nil {
			errs = append(errs, field.Forbidden(p.Child("restartPolicy"), "may not be set for non-init containers"))
		}
	}
	return errs
}

func initContainersErrors(cs, regular []corev1.Container, vols sets.Set[string], hostUsers bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for _, c := range regular {
		names.Insert(c.Name)
	}
	for i := range cs {
		c := &cs[i]
		p := path.Index(i)
		errs = append(errs, containerErrors(c, vols, hostUsers, p)...)
		if names.Has(c.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
		}
		names.Insert(c.Name)
		if c.RestartPolicy != nil && *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			errs = append(errs, field.NotSupported(p.Child("restartPolicy"), *c.RestartPolicy, []corev1.ContainerRestartPolicy{corev1.ContainerRestartPolicyAlways}))
		}
		if c.RestartPolicy == nil {
			// Only sidecars (restartPolicy Always) may be probed or
			// have hooks: a plain init container runs to completion.
			for _, f := range []struct {
				name string
				set  bool
			}{{"lifecycle", c.Lifecycle != nil}, {"livenessProbe", c.LivenessProbe != nil},
				{"readinessProbe", c.ReadinessProbe != nil}, {"startupProbe", c.StartupProbe != nil}} {
				if f.set {
					errs = append(errs, field.Forbidden(p.Child(f.name), "may not be set for init containers without restartPolicy=Always"))
				}
			}
		}
	}
	return errs
}

// containerErrors is kube's validateContainerCommon, less volume
// devices and resize policies; vols are the pod's valid volumes'
// names.
func containerErrors(c *corev1.Container, vols sets.Set[string], hostUsers bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), c.Name, msg))
		}
	}
	if c.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	} else if strings.TrimSpace(c.Image) != c.Image {
		errs = append(errs, field.Invalid(p.Child("image"), c.Image, "must not have leading or trailing whitespace"))
	}
	errs = append(errs, oneOf(p.Child("terminationMessagePolicy"), string(c.TerminationMessagePolicy), "File", "FallbackToLogsOnError")...)
	errs = append(errs, portErrors(c.Ports, p.Child("ports"))...)
	for i, e := range c.Env {
		np := p.Child("env").Index(i).Child("name")
		if e.Name == "" {
			errs = append(errs, field.Required(np, ""))
			continue
		}
		// kube v1.33 relaxes env names (RelaxedEnvironmentVariableValidation
		// is on by default): any printable ASCII but '='.
		for _, msg := range validation.IsRelaxedEnvVarName(e.Name) {
			errs = append(errs, field.Invalid(np, e.Name, msg))
		}
	}
	errs = append(errs, mountErrors(c, vols, p.Child("volumeMounts"))...)
	errs = append(errs, oneOf(p.Child("imagePullPolicy"), string(c.ImagePullPolicy), "Always", "IfNotPresent", "Never")...)
	errs = append(errs, resourceErrors(&c.Resources, p.Child("resources"))...)
	return append(errs, containerSecurityErrors(c.SecurityContext, hostUsers, p.Child("securityContext"))...)
}

func portErrors(ports []corev1.ContainerPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, port := range ports {
		p := path.Index(i)
		if port.Name != "" {
			if msgs := validation.IsValidPortName(port.Name); len(msgs) > 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(p.Child("name"), port.Name, msg))
				}
			} else if names.Has(port.Name) {
				errs = append(errs, field.Duplicate(p.Child("name"), port.Name))
			}
			names.Insert(port.Name)
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(p.Child("containerPort"), ""))
		} else {
			for _, msg := range validation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(p.Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(p.Child("hostPort"), port.HostPort, msg))
			}
		}
		errs = append(errs, oneOf(p.Child("protocol"), string(port.Protocol), "SCTP", "TCP", "UDP")...)
	}
	return errs
}

// resourceErrors is kube's check of a container's requests and limits:
// names, non-negative quantities, whole units for integer resources, and
// requests within limits.
func resourceErrors(r *corev1.ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	lim, req := path.Child("limits"), path.Child("requests")
	// Sorted, where kube walks the maps in random order, so that the
	// same object always gets the same answer.
	for _, name := range sets.List(sets.KeySet(r.Limits)) {
		errs = append(errs, quantityErrors(name, r.Limits[name], lim.Key(string(name)))...)
	}
	for _, name := range sets.List(sets.KeySet(r.Requests)) {
		q := r.Requests[name]
		errs = append(errs, quantityErrors(name, q, req.Key(string(name)))...)
		l, ok := r.Limits[name]
		switch {
		case ok && q.Cmp(l) != 0 && !overcommits(name):
			errs = append(errs, field.Invalid(req, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, l.String())))
		case ok && q.Cmp(l) > 0:
			errs = append(errs, field.Invalid(req, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, l.String())))
		case !ok && !overcommits(name):
			errs = append(errs, field.Required(lim, "Limit must be set for non overcommitable resources"))
		}
	}
	return errs
}

// standardResources are the unprefixed names a container may request.
var standardResources = sets.New("cpu", "memory", "ephemeral-storage")

// quantityErrors is kube's check of one resource name and quantity of a
// container: standard or extended names, no negative quantities, whole
// units of extended resources (GPUs, devices).
func quantityErrors(name corev1.ResourceName, q resource.Quantity, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := string(name)
	for _, msg := range validation.IsQualifiedName(n) {
		errs = append(errs, field.Invalid(p, printedAs(n), msg))
	}
	if len(errs) == 0 && !strings.Contains(n, "/") && !knownResources.Has(n) && !strings.HasPrefix(n, corev1.ResourceHugePagesPrefix) &&
		!strings.HasPrefix(n, "requests."+corev1.ResourceHugePagesPrefix) {
		errs = append(errs, field.Invalid(p, printedAs(n), "must be a standard resource type or fully qualified"))
	}
	switch {
	case !strings.Contains(n, "/"):
		if !standardResources.Has(n) && !strings.HasPrefix(n, corev1.ResourceHugePagesPrefix) {
			errs = append(errs, field.Invalid(p, printedAs(n), "must be a standard resource for containers"))
		}
	case !nativeResource(name) && !extendedResource(name):
		errs = append(errs, field.Invalid(p, printedAs(n), "doesn't follow extended resource name standard"))
	}
	if q.Sign() < 0 {
		errs = append(errs, field.Invalid(p, q.String(), "must be greater than or equal to 0"))
	}
	if extendedResource(name) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(p, printedAs(fmt.Sprintf("%#v", q)), "must be an integer"))
	}
	return errs
}

// knownResources are the unprefixed names kube knows in any resource
// list (quotas too); a container may use fewer (standardResources).
var knownResources = sets.New("cpu", "memory", "ephemeral-storage",
	"requests.cpu", "requests.memory", "requests.ephemeral-storage",
	"limits.cpu", "limits.memory", "limits.ephemeral-storage",
	"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
	"persistentvolumeclaims", "storage", "requests.storage", "services.nodeports", "services.loadbalancers")

// printedAs is a bad value that an error prints as this text, unquoted:
// kube-apiserver prints resource names by their String method and a
// quantity as its Go value, and clients see those messages.
type printedAs string

func (v printedAs) String() string { return string(v) }

// MarshalJSON fails so that field.Error falls back to String.
func (v printedAs) MarshalJSON() ([]byte, error) { return nil, errPrintedAs }

var errPrintedAs = errors.New("printed, not marshalled")

// nativeResource: kube's own resources are unprefixed or under
// kubernetes.io.
func nativeResource(name corev1.ResourceName) bool {
	n := string(name)
	return !strings.Contains(n, "/") || strings.Contains(n, "kubernetes.io/")
}

// extendedResource: a prefixed name outside kubernetes.io that is still
// a valid name once quota prefixes it with "requests.".
func extendedResource(name corev1.ResourceName) bool {
	n := string(name)
	if nativeResource(name) || strings.HasPrefix(n, "requests.") {
		return false
	}
	return len(validation.IsQualifiedName("requests."+n)) == 0
}

// overcommits reports whether requests may be below limits: kube's
// native resources other than hugepages.
func overcommits(name corev1.ResourceName) bool {
	return nativeResource(name) && !strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// probeErrors is kube's validateProbe: exactly one handler and no
// negative timing.
func probeErrors(pr *corev1.Probe, p *field.Path) field.ErrorList {
	if pr == nil {
		return nil
	}
	var errs field.ErrorList
	n := 0
	for _, h := range []struct {
		name string
		set  bool
	}{{"exec", pr.Exec != nil}, {"httpGet", pr.HTTPGet != nil}, {"tcpSocket", pr.TCPSocket != nil}, {"grpc", pr.GRPC != nil}} {
		if !h.set {
			continue
		}
		if n > 0 {
			errs = append(errs, field.Forbidden(p.Child(h.name), "may not specify more than 1 handler type"))
			continue
		}
		n++
	}
	if n == 0 {
		errs = append(errs, field.Required(p, "must specify a handler type"))
	}
	for _, f := range []struct {
		name string
		v    int32
	}{{"initialDelaySeconds", pr.InitialDelaySeconds}, {"timeoutSeconds", pr.TimeoutSeconds},
		{"periodSeconds", pr.PeriodSeconds}, {"successThreshold", pr.SuccessThreshold}, {"failureThreshold", pr.FailureThreshold}} {
		if f.v < 0 {
			errs = append(errs, field.Invalid(p.Child(f.name), int64(f.v), "must be greater than or equal to 0"))
		}
	}
	if g := pr.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
	}
	return errs
}

// tolerationErrors is kube's ValidateTolerations.
func tolerationErrors(ts []corev1.Toleration, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		p := path.Index(i)
		if t.Key != "" {
			errs = append(errs, labelNameErrors(t.Key, p.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		if t.Effect != "" {
			errs = append(errs, taintEffectErrors(t.Effect, p.Child("effect"))...)
		}
	}
	return errs
}

func taintEffectErrors(e corev1.TaintEffect, p *field.Path) field.ErrorList {
	switch e {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return nil
	}
	return field.ErrorList{field.NotSupported(p, e, []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute})}
}

package registry

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podStrategy holds Pods to kube-apiserver's rules: the defaults of
// the Pod type and of the default admission chain on create, the
// validation of the spec, and an update that may change little more
// than images, because the kubelet runs what it was first given.
type podStrategy struct{}

func (podStrategy) PrepareForCreate(now time.Time, obj map[string]any) field.ErrorList {
	var pod corev1.Pod
	if errs := toTyped(obj, &pod); len(errs) > 0 {
		return errs
	}
	defaultPod(&pod)
	admitPod(&pod)
	mergeAffinityLabelKeys(&pod)
	// A new pod starts Pending whatever the client says; the
	// scheduler and kubelet move it on through the status.
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: podQOS(&pod.Spec)}
	if len(pod.Spec.SchedulingGates) > 0 {
		pod.Status.Conditions = []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonSchedulingGated, Message: "Scheduling is blocked due to non-empty scheduling gates",
			LastTransitionTime: metav1.NewTime(now),
		}}
	}
	errs := ownPodSpecErrors(&pod.Spec, pod.Name, field.NewPath("spec"))
	if len(pod.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "ephemeralContainers"), "cannot be set on create"))
	}
	if len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &pod)
}

func (podStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	var pod, prev corev1.Pod
	if errs := append(toTyped(obj, &pod), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	// Defaults apply on every decode, so an update that leaves out a
	// defaulted field compares equal to the stored pod.
	defaultPod(&pod)
	pod.Status = prev.Status
	if errs := podUpdateErrors(&pod.Spec, &prev.Spec, pod.Name); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &pod)
}

// updatablePodFields is the list kube names when it refuses a pod
// update.
const updatablePodFields = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," +
	"`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// podUpdateErrors is kube's ValidatePodUpdate for the spec.
func podUpdateErrors(spec, old *corev1.PodSpec, name string) field.ErrorList {
	path := field.NewPath("spec")
	errs := ownPodSpecErrors(spec, name, path)
	for _, cs := range []struct {
		name     string
		now, was []corev1.Container
	}{{"containers", spec.Containers, old.Containers}, {"initContainers", spec.InitContainers, old.InitContainers}} {
		if len(cs.now) != len(cs.was) {
			return append(errs, field.Forbidden(path.Child(cs.name), "pod updates may not add or remove containers"))
		}
	}
	if d := spec.ActiveDeadlineSeconds; d != nil {
		if *d < 0 || *d > 1<<31-1 {
			return append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), *d, validation.InclusiveRangeError(0, 1<<31-1)))
		}
		if old.ActiveDeadlineSeconds != nil && *old.ActiveDeadlineSeconds < *d {
			return append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), *d, "must be less than or equal to previous value"))
		}
	} else if old.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), spec.ActiveDeadlineSeconds, "must not update from a positive integer to nil value"))
	}
	errs = append(errs, onlyAddedTolerations(spec.Tolerations, old.Tolerations, path.Child("tolerations"))...)
	errs = append(errs, onlyRemovedGates(spec.SchedulingGates, old.SchedulingGates, path.Child("schedulingGates"))...)

	// What may change, set back to the stored values: anything left
	// that differs is a change kube refuses.
	munged := spec.DeepCopy()
	for i := range munged.Containers {
		munged.Containers[i].Image = old.Containers[i].Image
	}
	for i := range munged.InitContainers {
		munged.InitContainers[i].Image = old.InitContainers[i].Image
	}
	munged.ActiveDeadlineSeconds = old.ActiveDeadlineSeconds
	munged.SchedulingGates = old.SchedulingGates
	munged.Tolerations = old.Tolerations
	if g, og := munged.TerminationGracePeriodSeconds, old.TerminationGracePeriodSeconds; og != nil && *og < 0 && g != nil && *g == 1 {
		munged.TerminationGracePeriodSeconds = og
	}
	if !equality.Semantic.DeepEqual(*munged, *old) {
		errs = append(errs, field.Forbidden(path, fmt.Sprintf("pod updates may not change fields other than %s\nchanged: %s",
			updatablePodFields, strings.Join(changedFields(munged, old), ","))))
	}
	return errs
}

// changedFields names the spec fields that differ, the abbreviated
// form of the diff kube appends to its refusal.
func changedFields(a, b *corev1.PodSpec) []string {
	am, _ := fieldsOf(a)
	bm, _ := fieldsOf(b)
	var out []string
	for _, k := range sets.List(sets.KeySet(am).Union(sets.KeySet(bm))) {
		if !equality.Semantic.DeepEqual(am[k], bm[k]) {
			out = append(out, "spec."+k)
		}
	}
	return out
}

func fieldsOf(spec *corev1.PodSpec) (map[string]any, field.ErrorList) {
	m := map[string]any{}
	return m, fromTyped(m, spec)
}

// onlyAddedTolerations is kube's rule that an update keeps every
// toleration, changing at most its tolerationSeconds.
func onlyAddedTolerations(now, was []corev1.Toleration, path *field.Path) field.ErrorList {
	for _, o := range was {
		found := false
		for _, n := range now {
			o.TolerationSeconds = n.TolerationSeconds
			if equality.Semantic.DeepEqual(o, n) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(path, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}

// onlyRemovedGates: scheduling gates may be lifted, never added.
func onlyRemovedGates(now, was []corev1.PodSchedulingGate, path *field.Path) field.ErrorList {
	old := sets.New[string]()
	for _, g := range was {
		old.Insert(g.Name)
	}
	var errs field.ErrorList
	for i, g := range now {
		if !old.Has(g.Name) {
			errs = append(errs, field.Forbidden(path.Index(i).Child("name"), fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", g.Name)))
		}
	}
	return errs
}

// PrepareForStatusUpdate is kube's podStatusStrategy: the spec and
// owner references stay as stored (old kubelets corrupted owner
// references), the QoS class set on create cannot be cleared, and an
// observedGeneration the write leaves out keeps the stored one.
func (podStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	meta, oldMeta := nestedMap(obj, true, "metadata"), nestedMap(old, false, "metadata")
	if refs, ok := oldMeta["ownerReferences"]; ok {
		meta["ownerReferences"] = refs
	} else {
		delete(meta, "ownerReferences")
	}
	var pod, prev corev1.Pod
	if errs := append(toTyped(obj, &pod), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	syncPodIPs(&pod.Status)
	if pod.Status.QOSClass == "" {
		pod.Status.QOSClass = prev.Status.QOSClass
	}
	if pod.Status.ObservedGeneration == 0 {
		pod.Status.ObservedGeneration = prev.Status.ObservedGeneration
	}
	was := map[corev1.PodConditionType][]int64{}
	for _, c := range prev.Status.Conditions {
		was[c.Type] = append(was[c.Type], c.ObservedGeneration)
	}
	for i, c := range pod.Status.Conditions {
		gens := was[c.Type]
		if len(gens) == 0 {
			continue
		}
		was[c.Type] = gens[1:]
		if c.ObservedGeneration == 0 {
			pod.Status.Conditions[i].ObservedGeneration = gens[0]
		}
	}
	if errs := podStatusErrors(&pod, &prev); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &pod)
}

// podStatusErrors is kube's ValidatePodStatusUpdate for what a status
// write can get wrong: condition types, generations, the QoS class, IPs,
// and containers that come back from terminated when the restart
// policy says they stay so.
func podStatusErrors(pod, old *corev1.Pod) field.ErrorList {
	path := field.NewPath("status")
	var errs field.ErrorList
	system := sets.New(corev1.PodScheduled, corev1.PodReady, corev1.PodInitialized)
	for i, c := range pod.Status.Conditions {
		p := path.Child("conditions").Index(i)
		if c.ObservedGeneration < 0 {
			errs = append(errs, field.Invalid(p.Child("observedGeneration"), c.ObservedGeneration, "must be a non-negative integer"))
		}
		if !system.Has(c.Type) {
			// kube names the field Type here, capitalised.
			for _, msg := range validation.IsQualifiedName(string(c.Type)) {
				errs = append(errs, field.Invalid(p.Child("Type"), string(c.Type), msg))
			}
		}
	}
	if n := pod.Status.NominatedNodeName; n != "" && n != old.Status.NominatedNodeName {
		for _, msg := range validation.IsDNS1123Subdomain(n) {
			errs = append(errs, field.Invalid(path.Child("nominatedNodeName"), n, msg))
		}
	}
	if g := pod.Status.ObservedGeneration; g < 0 {
		errs = append(errs, field.Invalid(path.Child("observedGeneration"), g, "must be a non-negative integer"))
	}
	errs = append(errs, apivalidation.ValidateImmutableField(pod.Status.QOSClass, old.Status.QOSClass, path.Child("qosClass"))...)
	errs = append(errs, stateTransitionErrors(pod.Status.ContainerStatuses, old.Status.ContainerStatuses, path.Child("containerStatuses"), old.Spec.RestartPolicy)...)
	errs = append(errs, stateTransitionErrors(pod.Status.EphemeralContainerStatuses, old.Status.EphemeralContainerStatuses, path.Child("ephemeralContainerStatuses"), corev1.RestartPolicyNever)...)
	var oldIPs []string
	for _, ip := range old.Status.PodIPs {
		oldIPs = append(oldIPs, ip.IP)
	}
	var ips []string
	for i, ip := range pod.Status.PodIPs {
		errs = append(errs, validation.IsValidIPForLegacyField(path.Child("podIPs").Index(i), ip.IP, false, oldIPs)...)
		ips = append(ips, ip.IP)
	}
	if len(ips) > 1 && !oneOfEachFamily(ips, net.ParseIP) {
		// kube prints its internal PodIP values here, Go syntax.
		shown := make([]string, len(ips))
		for i, ip := range ips {
			shown[i] = fmt.Sprintf("core.PodIP{IP:%q}", ip)
		}
		errs = append(errs, field.Invalid(path.Child("podIPs"), printedAs("[]core.PodIP{"+strings.Join(shown, ", ")+"}"),
			"may specify no more than one IP for each IP family"))
	}
	return errs
}

// stateTransitionErrors: a container that terminated stays terminated
// unless the pod restarts it (Always, or OnFailure after a failure).
func stateTransitionErrors(now, was []corev1.ContainerStatus, path *field.Path, policy corev1.RestartPolicy) field.ErrorList {
	if policy == corev1.RestartPolicyAlways {
		return nil
	}
	var errs field.ErrorList
	for i, o := range was {
		term := o.State.Terminated
		if term == nil || (term.ExitCode != 0 && policy == corev1.RestartPolicyOnFailure) {
			continue
		}
		for _, n := range now {
			if n.Name == o.Name && n.State.Terminated == nil {
				errs = append(errs, field.Forbidden(path.Index(i).Child("state"), "may not be transitioned to non-terminated state"))
			}
		}
	}
	return errs
}

// oneOfEachFamily reports whether two addresses (or CIDRs, with their
// parser) are one IPv4 and one IPv6.
func oneOfEachFamily(values []string, parse func(string) net.IP) bool {
	if len(values) != 2 {
		return false
	}
	a, b := parse(values[0]), parse(values[1])
	return a != nil && b != nil && (a.To4() != nil) != (b.To4() != nil)
}

// FieldValues gives spec.hostNetwork as kube selects it: "false" when
// the field is absent.
func (podStrategy) FieldValues(obj map[string]any) fields.Set {
	v, _ := Lookup(obj, "spec.hostNetwork")
	b, _ := v.(bool)
	return fields.Set{"spec.hostNetwork": strconv.FormatBool(b)}
}

// podQOS is kube's QoS class of a pod from its containers' cpu and
// memory: Guaranteed when every container limits both and requests
// equal limits, BestEffort when nothing is requested or limited,
// Burstable otherwise.
func podQOS(spec *corev1.PodSpec) corev1.PodQOSClass {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	guaranteed := true
	add := func(into corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) {
		sum := into[name]
		sum.Add(q)
		into[name] = sum
	}
	for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for _, c := range cs {
			for name, q := range c.Resources.Requests {
				if (name == corev1.ResourceCPU || name == corev1.ResourceMemory) && q.Sign() > 0 {
					add(requests, name, q)
				}
			}
			limited := 0
			for name, q := range c.Resources.Limits {
				if (name == corev1.ResourceCPU || name == corev1.ResourceMemory) && q.Sign() > 0 {
					limited++
					add(limits, name, q)
				}
			}
			if limited < 2 {
				guaranteed = false
			}
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for name, r := range requests {
			if l, ok := limits[name]; !ok || l.Cmp(r) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

package nodeagent

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// phase is the pod's phase from its containers' states, as the kubelet
// works it out: waiting for a first run is Pending, a container that
// stopped and will restart still counts as running, and a pod whose
// containers all stopped for good has succeeded or failed.
func (s *stepper) phase(initialized, initFailed bool, policy corev1.RestartPolicy) corev1.PodPhase {
	if initFailed {
		return corev1.PodFailed
	}
	if !initialized {
		return corev1.PodPending
	}
	var running, waiting, stopped, succeeded int
	for _, cs := range s.st.ContainerStatuses {
		switch {
		case cs.State.Running != nil:
			running++
		case cs.State.Terminated != nil:
			stopped++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case cs.LastTerminationState.Terminated != nil:
			stopped++
		default:
			waiting++
		}
	}
	switch {
	case waiting > 0:
		return corev1.PodPending
	case running > 0:
		return corev1.PodRunning
	case stopped == 0:
		return corev1.PodPending
	case policy == corev1.RestartPolicyAlways:
		return corev1.PodRunning
	case policy == corev1.RestartPolicyOnFailure && stopped != succeeded:
		return corev1.PodRunning
	case stopped == succeeded:
		return corev1.PodSucceeded
	default:
		return corev1.PodFailed
	}
}

// kubeletConditions are the conditions the kubelet owns, in the order it
// writes them after the others (readiness gates', DisruptionTarget),
// which keep their place. PodScheduled is among them: the kubelet
// asserts it for every pod it runs, bound by the scheduler or not.
var kubeletConditions = []corev1.PodConditionType{
	corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled,
}

// setConditions writes the kubelet's conditions for the pod's state.
func (s *stepper) setConditions(initialized bool) {
	terminal := s.st.Phase == corev1.PodSucceeded || s.st.Phase == corev1.PodFailed
	completed := s.st.Phase == corev1.PodSucceeded
	want := map[corev1.PodConditionType]corev1.PodCondition{}

	// The sandbox is up from admission until the pod is done.
	sandbox := corev1.ConditionTrue
	if terminal {
		sandbox = corev1.ConditionFalse
	}
	want[corev1.PodReadyToStartContainers] = corev1.PodCondition{Status: sandbox}

	switch {
	case len(s.pod.Spec.InitContainers) == 0:
		want[corev1.PodInitialized] = corev1.PodCondition{Status: corev1.ConditionTrue}
	case completed:
		want[corev1.PodInitialized] = corev1.PodCondition{Status: corev1.ConditionTrue, Reason: "PodCompleted"}
	case initialized:
		want[corev1.PodInitialized] = corev1.PodCondition{Status: corev1.ConditionTrue}
	default:
		var incomplete []string
		for i, c := range s.pod.Spec.InitContainers {
			cs := s.st.InitContainerStatuses[i]
			if !(cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0) && !(isSidecar(&c) && cs.Started != nil && *cs.Started) {
				incomplete = append(incomplete, c.Name)
			}
		}
		want[corev1.PodInitialized] = corev1.PodCondition{Status: corev1.ConditionFalse,
			Reason: "ContainersNotInitialized", Message: fmt.Sprintf("containers with incomplete status: %v", incomplete)}
	}

	// Sidecars count for readiness, listed before the regular containers.
	var unready []string
	for i, c := range s.pod.Spec.InitContainers {
		if isSidecar(&c) && i < len(s.st.InitContainerStatuses) && !s.st.InitContainerStatuses[i].Ready {
			unready = append(unready, c.Name)
		}
	}
	for _, c := range s.pod.Spec.Containers {
		for _, cs := range s.st.ContainerStatuses {
			if cs.Name == c.Name && !cs.Ready {
				unready = append(unready, c.Name)
			}
		}
	}
	containers := corev1.PodCondition{Status: corev1.ConditionTrue}
	switch {
	case completed:
		containers = corev1.PodCondition{Status: corev1.ConditionFalse, Reason: "PodCompleted"}
	case s.st.Phase == corev1.PodFailed:
		containers = corev1.PodCondition{Status: corev1.ConditionFalse, Reason: "PodFailed"}
	case len(unready) > 0:
		containers = corev1.PodCondition{Status: corev1.ConditionFalse, Reason: "ContainersNotReady",
			Message: fmt.Sprintf("containers with unready status: %v", unready)}
	}
	want[corev1.ContainersReady] = containers
	ready := containers
	if ready.Status == corev1.ConditionTrue {
		ready = s.readinessGates()
	}
	want[corev1.PodReady] = ready
	want[corev1.PodScheduled] = corev1.PodCondition{Status: corev1.ConditionTrue}

	out := make([]corev1.PodCondition, 0, len(s.st.Conditions)+len(kubeletConditions))
	for _, c := range s.st.Conditions {
		if _, owned := want[c.Type]; !owned {
			out = append(out, c)
		}
	}
	for _, t := range kubeletConditions {
		c := want[t]
		c.Type = t
		out = append(out, s.transition(c))
	}
	s.st.Conditions = out
}

// readinessGates is the Ready condition of a pod whose containers are
// ready: true only if every readiness gate's condition is true too.
func (s *stepper) readinessGates() corev1.PodCondition {
	for _, g := range s.pod.Spec.ReadinessGates {
		c := s.condition(g.ConditionType)
		if c == nil {
			return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: "ReadinessGatesNotReady",
				Message: fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", g.ConditionType)}
		}
		if c.Status != corev1.ConditionTrue {
			return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: "ReadinessGatesNotReady",
				Message: fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", g.ConditionType, c.Status)}
		}
	}
	return corev1.PodCondition{Status: corev1.ConditionTrue}
}

func (s *stepper) condition(t corev1.PodConditionType) *corev1.PodCondition {
	for i := range s.st.Conditions {
		if s.st.Conditions[i].Type == t {
			return &s.st.Conditions[i]
		}
	}
	return nil
}

// transition keeps the previous lastTransitionTime when the status did
// not change, and stamps now when it did.
func (s *stepper) transition(c corev1.PodCondition) corev1.PodCondition {
	if old := s.condition(c.Type); old != nil && old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
		c.LastProbeTime = old.LastProbeTime
		return c
	}
	c.LastTransitionTime = metav1.NewTime(s.now)
	return c
}

package job

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Verdict is what a Job's pod failure policy makes of one failed pod.
type Verdict struct {
	// Action is the matching rule's action; empty when no rule matched.
	Action batchv1.PodFailurePolicyAction
	// Counts is whether the failure counts toward backoffLimit (and the
	// index's backoffLimitPerIndex): every failure but an ignored one.
	Counts bool
	// FailJob, for a FailJob rule, is the message the Job fails with.
	FailJob string
}

// MatchFailurePolicy finds the first rule of policy that pod's failure
// matches: a rule on exit codes matches a terminated container (regular
// ones first, then init ones) with a non-zero code the operator
// accepts; a rule on pod conditions matches a condition of the pod's
// with the given type and status. Without a policy or a match, the
// failure counts.
func MatchFailurePolicy(policy *batchv1.PodFailurePolicy, pod *corev1.Pod) Verdict {
	if policy == nil {
		return Verdict{Counts: true}
	}
	for i, rule := range policy.Rules {
		var failJob string
		switch {
		case rule.OnExitCodes != nil:
			c := matchExitCodes(pod, rule.OnExitCodes)
			if c == nil {
				continue
			}
			failJob = fmt.Sprintf("Container %s for pod %s/%s failed with exit code %d matching %s rule at index %d",
				c.Name, pod.Namespace, pod.Name, c.State.Terminated.ExitCode, rule.Action, i)
		case rule.OnPodConditions != nil:
			c := matchPodConditions(pod, rule.OnPodConditions)
			if c == nil {
				continue
			}
			failJob = fmt.Sprintf("Pod %s/%s has condition %s matching %s rule at index %d",
				pod.Namespace, pod.Name, c.Type, rule.Action, i)
		default:
			continue
		}
		switch rule.Action {
		case batchv1.PodFailurePolicyActionIgnore:
			return Verdict{Action: rule.Action}
		case batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyActionCount:
			return Verdict{Action: rule.Action, Counts: true}
		case batchv1.PodFailurePolicyActionFailJob:
			return Verdict{Action: rule.Action, Counts: true, FailJob: failJob}
		}
		// An action this version does not know is passed over, as kube
		// passes over a rule whose action it does not handle.
	}
	return Verdict{Counts: true}
}

func matchExitCodes(pod *corev1.Pod, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			c := &list[i]
			t := c.State.Terminated
			if t == nil || t.ExitCode == 0 || (req.ContainerName != nil && *req.ContainerName != c.Name) {
				continue
			}
			in := slices.Contains(req.Values, t.ExitCode)
			if (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && in) ||
				(req.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn && !in) {
				return c
			}
		}
	}
	return nil
}

func matchPodConditions(pod *corev1.Pod, patterns []batchv1.PodFailurePolicyOnPodConditionsPattern) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		c := &pod.Status.Conditions[i]
		for _, p := range patterns {
			if c.Type == p.Type && c.Status == p.Status {
				return c
			}
		}
	}
	return nil
}

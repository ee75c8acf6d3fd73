package job

import (
	"cmp"
	"maps"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/podcondition"
)

// RemovalOrder sorts pods the way kube picks active pods to remove,
// least advanced first: unscheduled before scheduled; Pending before
// Unknown before Running; not ready before ready; ready more recently
// before earlier; more container restarts (regular, then sidecar)
// before fewer; created more recently before earlier.
func RemovalOrder(pods []*corev1.Pod) {
	slices.SortStableFunc(pods, compareAdvance)
}

func compareAdvance(a, b *corev1.Pod) int {
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		if a.Spec.NodeName == "" {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(phaseRank(a.Status.Phase), phaseRank(b.Status.Phase)); c != 0 {
		return c
	}
	ra, rb := podcondition.True(a, corev1.PodReady), podcondition.True(b, corev1.PodReady)
	if ra != rb {
		if !ra {
			return -1
		}
		return 1
	}
	if ra {
		if c := laterFirst(readySince(a), readySince(b)); c != 0 {
			return c
		}
	}
	regA, sideA := restarts(a)
	regB, sideB := restarts(b)
	if c := cmp.Compare(regB, regA); c != 0 {
		return c
	}
	if c := cmp.Compare(sideB, sideA); c != 0 {
		return c
	}
	return laterFirst(a.CreationTimestamp, b.CreationTimestamp)
}

// laterFirst orders a zero time first, then the later time.
func laterFirst(a, b metav1.Time) int {
	switch {
	case a.Equal(&b):
		return 0
	case a.IsZero():
		return -1
	case b.IsZero():
		return 1
	case a.After(b.Time):
		return -1
	}
	return 1
}

func phaseRank(p corev1.PodPhase) int {
	switch p {
	case corev1.PodPending:
		return 0
	case corev1.PodUnknown:
		return 1
	case corev1.PodRunning:
		return 2
	}
	// Any other phase ranks with Pending, as a missing map entry does
	// in kube.
	return 0
}

func readySince(pod *corev1.Pod) metav1.Time {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime
		}
	}
	return metav1.Time{}
}

func restarts(pod *corev1.Pod) (regular, sidecar int32) {
	for _, c := range pod.Status.ContainerStatuses {
		regular = max(regular, c.RestartCount)
	}
	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
		}
	}
	for _, c := range pod.Status.InitContainerStatuses {
		if sidecars[c.Name] {
			sidecar = max(sidecar, c.RestartCount)
		}
	}
	return regular, sidecar
}

// forRemoval picks at least atLeast of the active pods to remove. In an
// Indexed Job it first takes pods without a valid index and, of pods
// sharing an index, all but the most advanced; then, if that is not
// enough, the least advanced of the rest.
func forRemoval(job *batchv1.Job, active []*corev1.Pod, atLeast int) []*corev1.Pod {
	var rm, left []*corev1.Pod
	if indexed(job) {
		completions := int(completionsOf(job))
		byIndex := map[int][]*corev1.Pod{}
		for _, p := range active {
			ix := CompletionIndex(p)
			if ix == noIndex || ix >= completions {
				rm = append(rm, p)
				continue
			}
			byIndex[ix] = append(byIndex[ix], p)
		}
		for _, ix := range slices.Sorted(maps.Keys(byIndex)) {
			same := byIndex[ix]
			RemovalOrder(same)
			rm = append(rm, same[:len(same)-1]...)
			left = append(left, same[len(same)-1])
		}
	} else {
		left = slices.Clone(active)
	}
	if len(rm) < atLeast {
		RemovalOrder(left)
		rm = append(rm, left[:atLeast-len(rm)]...)
	}
	return rm
}

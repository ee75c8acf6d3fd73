package disruption

import (
	"fmt"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/podcondition"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DeletionTimeout is how long an evicted pod may stay in a budget's
// disruptedPods, not counted as healthy, before the controller assumes
// its deletion failed and counts it again, as kube's.
const DeletionTimeout = 2 * time.Minute

// Input is what a budget's status is computed from.
type Input struct {
	Budget *policyv1.PodDisruptionBudget
	// Pods are the pods of the budget's namespace its selector picks.
	Pods []*corev1.Pod
	// Scales are the replicas of the pods' controllers, by the UID of
	// their controller reference; a controller missing here was not
	// found.
	Scales map[types.UID]int32
	Now    time.Time
}

// Event is an event the controller records on the budget.
type Event struct {
	Type, Reason, Message string
}

// Output is the budget's status as computed.
type Output struct {
	Status policyv1.PodDisruptionBudgetStatus
	// Changed says Status differs from the budget's and must be written.
	Changed bool
	// Recheck, when positive, is when to compute again: the first
	// recorded disruption expires then.
	Recheck time.Duration
	Events  []Event
}

// Compute is kube's disruption controller's sync of one budget: the
// expected and desired pod counts from the spec, the healthy pods (ready,
// not being deleted, not recently evicted), and the allowance. When the
// counts cannot be computed the budget fails safe: no disruptions, and a
// DisruptionAllowed condition False with reason SyncFailed.
func Compute(in Input) Output {
	pdb := in.Budget
	var out Output
	if len(in.Pods) == 0 {
		out.Events = append(out.Events, Event{corev1.EventTypeNormal, "NoPods", "No matching pods found"})
	}
	expected, desired, unmanaged, err := expectedCount(pdb, in.Pods, in.Scales)
	if err != nil {
		out.Events = append(out.Events, Event{corev1.EventTypeWarning, "CalculateExpectedPodCountFailed",
			"Failed to calculate the number of expected pods: " + err.Error()})
		return failSafe(pdb, err, in.Now, out)
	}
	if len(unmanaged) > 0 {
		out.Events = append(out.Events, Event{corev1.EventTypeWarning, "UnmanagedPods", fmt.Sprintf(
			"Pods selected by this PodDisruptionBudget (selector: %v) were found to be unmanaged. As a result, the status of the PDB "+
				"cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set "+
				"\".spec.minAvailable\" field of the PDB to an integer value.", pdb.Spec.Selector)})
	}
	disrupted, recheck := liveDisruptions(in.Pods, pdb.Status.DisruptedPods, in.Now)
	healthy := healthyPods(in.Pods, disrupted, in.Now)
	allowed := healthy - desired
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	st := policyv1.PodDisruptionBudgetStatus{
		CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected, DisruptionsAllowed: allowed,
		DisruptedPods: disrupted, ObservedGeneration: pdb.Generation,
		Conditions: append([]metav1.Condition(nil), pdb.Status.Conditions...),
	}
	setAllowedCondition(&st, in.Now)
	if recheck != nil {
		out.Recheck = recheck.Sub(in.Now)
	}
	out.Status = st
	out.Changed = !equality.Semantic.DeepEqual(normalized(pdb.Status), normalized(st))
	return out
}

// normalized treats an empty disruptedPods as absent, as kube's
// comparison does.
func normalized(st policyv1.PodDisruptionBudgetStatus) policyv1.PodDisruptionBudgetStatus {
	if len(st.DisruptedPods) == 0 {
		st.DisruptedPods = nil
	}
	return st
}

// expectedCount is kube's getExpectedPodCount: maxUnavailable and a
// percentage minAvailable scale from the pods' controllers; an integer
// minAvailable counts the pods themselves.
func expectedCount(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, scales map[types.UID]int32) (expected, desired int32, unmanaged []string, err error) {
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		expected, unmanaged, err = expectedScale(pods, scales)
		if err != nil {
			return 0, 0, nil, err
		}
		maxUnavailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true)
		if err != nil {
			return 0, 0, nil, err
		}
		desired = max(expected-int32(maxUnavailable), 0)
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		desired, expected = pdb.Spec.MinAvailable.IntVal, int32(len(pods))
	case pdb.Spec.MinAvailable != nil:
		expected, unmanaged, err = expectedScale(pods, scales)
		if err != nil {
			return 0, 0, nil, err
		}
		minAvailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expected), true)
		if err != nil {
			return 0, 0, nil, err
		}
		desired = int32(minAvailable)
	}
	return expected, desired, unmanaged, nil
}

// expectedScale is the sum of the scales of the pods' controllers; pods
// without a controller are unmanaged and add nothing, and a controller
// that cannot be found fails the sync.
func expectedScale(pods []*corev1.Pod, scales map[types.UID]int32) (int32, []string, error) {
	var unmanaged []string
	seen := map[types.UID]bool{}
	var total int32
	for _, pod := range pods {
		ref := metav1.GetControllerOf(pod)
		if ref == nil {
			unmanaged = append(unmanaged, pod.Name)
			continue
		}
		if seen[ref.UID] {
			continue
		}
		n, ok := scales[ref.UID]
		if !ok {
			return 0, nil, fmt.Errorf("found no controllers for pod %q", pod.Name)
		}
		seen[ref.UID] = true
		total += n
	}
	return total, unmanaged, nil
}

// liveDisruptions keeps the recorded disruptions of pods that still
// exist, are not yet being deleted and were recorded less than
// DeletionTimeout ago, and says when the first of them expires.
func liveDisruptions(pods []*corev1.Pod, recorded map[string]metav1.Time, now time.Time) (map[string]metav1.Time, *time.Time) {
	out := map[string]metav1.Time{}
	var recheck *time.Time
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		at, ok := recorded[pod.Name]
		if !ok {
			continue
		}
		expires := at.Add(DeletionTimeout)
		if expires.Before(now) {
			continue
		}
		if recheck == nil || expires.Before(*recheck) {
			recheck = &expires
		}
		out[pod.Name] = at
	}
	return out, recheck
}

// healthyPods counts the ready pods that are neither being deleted nor
// recently evicted.
func healthyPods(pods []*corev1.Pod, disrupted map[string]metav1.Time, now time.Time) int32 {
	var n int32
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if at, ok := disrupted[pod.Name]; ok && at.Add(DeletionTimeout).After(now) {
			continue
		}
		if podcondition.True(pod, corev1.PodReady) {
			n++
		}
	}
	return n
}

// setAllowedCondition sets DisruptionAllowed from the allowance.
func setAllowedCondition(st *policyv1.PodDisruptionBudgetStatus, now time.Time) {
	c := metav1.Condition{
		Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
		Reason: policyv1.InsufficientPodsReason, ObservedGeneration: st.ObservedGeneration,
		LastTransitionTime: metav1.NewTime(now),
	}
	if st.DisruptionsAllowed > 0 {
		c.Status, c.Reason = metav1.ConditionTrue, policyv1.SufficientPodsReason
	}
	if st.Conditions == nil {
		st.Conditions = []metav1.Condition{}
	}
	apimeta.SetStatusCondition(&st.Conditions, c)
}

// failSafe is the status of a budget whose counts cannot be computed:
// the stored one with no disruptions allowed and the reason why.
func failSafe(pdb *policyv1.PodDisruptionBudget, err error, now time.Time, out Output) Output {
	st := *pdb.Status.DeepCopy()
	st.DisruptionsAllowed = 0
	if st.Conditions == nil {
		st.Conditions = []metav1.Condition{}
	}
	apimeta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
		Reason: policyv1.SyncFailedReason, Message: err.Error(), ObservedGeneration: st.ObservedGeneration,
		LastTransitionTime: metav1.NewTime(now),
	})
	out.Status = st
	out.Changed = !equality.Semantic.DeepEqual(pdb.Status, st)
	return out
}

package fsm

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReadyCondition is the condition a Machine derives from its states'.
const ReadyCondition = "Ready"

// Reasons the Machine itself sets.
const (
	// ReasonReady: Ready is True.
	ReasonReady = "Ready"
	// ReasonPending: the last walk stopped before reaching the state.
	ReasonPending = "Pending"
	// ReasonDeleting: Ready while the deletion states run.
	ReasonDeleting = "Deleting"
	// ReasonUndeclaredTransition, ReasonTooManySteps and ReasonNoOutcome
	// are on Ready when the walk broke for the matching error.
	ReasonUndeclaredTransition = "UndeclaredTransition"
	ReasonTooManySteps         = "TooManySteps"
	ReasonNoOutcome            = "NoOutcome"
)

// deriveReady computes Ready from the conditions of types, in that
// order: True when every one present is True, else the first that is
// not, so Ready names what holds the object back. Absent types are
// skipped: a finished walk removes the conditions of branches it did
// not take.
func deriveReady(conds []metav1.Condition, types []string, generation int64) metav1.Condition {
	ready := metav1.Condition{Type: ReadyCondition, ObservedGeneration: generation}
	found := false
	for _, t := range types {
		c := meta.FindStatusCondition(conds, t)
		if c == nil {
			continue
		}
		found = true
		if c.Status != metav1.ConditionTrue {
			ready.Status, ready.Reason = c.Status, c.Reason
			ready.Message = t + " is " + string(c.Status)
			if c.Message != "" {
				ready.Message = t + ": " + c.Message
			}
			return ready
		}
	}
	if !found {
		ready.Status, ready.Reason, ready.Message = metav1.ConditionUnknown, ReasonPending, "no state has run"
		return ready
	}
	ready.Status, ready.Reason, ready.Message = metav1.ConditionTrue, ReasonReady, "every state's condition is True"
	return ready
}

// conditionsEqual compares what a status write would change. Times are
// compared as instants: the server stores seconds, and meta's helpers
// keep the stored value when a status does not change.
func conditionsEqual(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message ||
			x.ObservedGeneration != y.ObservedGeneration || !x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	return true
}

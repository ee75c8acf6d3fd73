package namespace

import corev1 "k8s.io/api/core/v1"

// Bridges for the external tests, which run against a live server and so
// cannot live in this package (pkg/server imports it).

var (
	ConditionTypes = conditionTypes
	Condition      = condition
)

// OKCondition is an entry of okConditions with its fields exported.
type OKCondition struct{ Reason, Message string }

// OKConditions are okConditions for the external tests.
var OKConditions = func() map[corev1.NamespaceConditionType]OKCondition {
	m := map[corev1.NamespaceConditionType]OKCondition{}
	for ct, c := range okConditions {
		m[ct] = OKCondition{c.reason, c.message}
	}
	return m
}()

// condition returns the namespace's condition of type ct, if any.
func condition(ns *corev1.Namespace, ct corev1.NamespaceConditionType) (corev1.NamespaceCondition, bool) {
	for _, c := range ns.Status.Conditions {
		if c.Type == ct {
			return c, true
		}
	}
	return corev1.NamespaceCondition{}, false
}

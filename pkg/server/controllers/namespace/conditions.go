package namespace

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The namespace's deletion conditions carry kube-controller-manager's
// types, reasons and messages, so `kubectl describe namespace` and the
// scripts people keep for stuck namespaces read them unchanged. Each
// type is True while its problem lasts and False, with the "ok" reason
// below, otherwise.
var conditionTypes = []corev1.NamespaceConditionType{
	corev1.NamespaceDeletionDiscoveryFailure,
	corev1.NamespaceDeletionGVParsingFailure,
	corev1.NamespaceDeletionContentFailure,
	corev1.NamespaceContentRemaining,
	corev1.NamespaceFinalizersRemaining,
}

var okConditions = map[corev1.NamespaceConditionType]struct{ reason, message string }{
	corev1.NamespaceDeletionDiscoveryFailure: {"ResourcesDiscovered", "All resources successfully discovered"},
	corev1.NamespaceDeletionGVParsingFailure: {"ParsedGroupVersions", "All legacy kube types successfully parsed"},
	corev1.NamespaceDeletionContentFailure:   {"ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	corev1.NamespaceContentRemaining:         {"ContentRemoved", "All content successfully removed"},
	corev1.NamespaceFinalizersRemaining:      {"ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// Reasons of the True conditions.
const (
	ReasonDiscoveryFailed       = "DiscoveryFailed"
	ReasonContentDeletionFailed = "ContentDeletionFailed"
	ReasonSomeResourcesRemain   = "SomeResourcesRemain"
	ReasonSomeFinalizersRemain  = "SomeFinalizersRemain"
)

// outcome is what one pass over a namespace's content found.
type outcome struct {
	discoveryErr error
	deleteErrs   []error // one per kind that could not be deleted
	remaining    map[schema.GroupResource]int
	finalizers   map[string]int // finalizer -> objects still holding it
}

// total is the number of objects left.
func (o *outcome) total() int {
	n := 0
	for _, c := range o.remaining {
		n += c
	}
	return n
}

// failures returns the True conditions the outcome calls for.
func (o *outcome) failures() []corev1.NamespaceCondition {
	var out []corev1.NamespaceCondition
	add := func(t corev1.NamespaceConditionType, reason, msg string) {
		out = append(out, corev1.NamespaceCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: msg})
	}
	if o.discoveryErr != nil {
		add(corev1.NamespaceDeletionDiscoveryFailure, ReasonDiscoveryFailed, o.discoveryErr.Error())
	}
	if len(o.deleteErrs) > 0 {
		msgs := make([]string, len(o.deleteErrs))
		for i, err := range o.deleteErrs {
			msgs[i] = err.Error()
		}
		slices.Sort(msgs)
		joined := msgs[0]
		if len(msgs) > 1 {
			joined = "[" + strings.Join(msgs, ", ") + "]"
		}
		add(corev1.NamespaceDeletionContentFailure, ReasonContentDeletionFailed,
			fmt.Sprintf("Failed to delete all resource types, %d remaining: %s", len(msgs), joined))
	}
	var kinds []string
	for gr, n := range o.remaining {
		if n > 0 {
			// resource.group, with the trailing dot for the core group.
			kinds = append(kinds, fmt.Sprintf("%s.%s has %d resource instances", gr.Resource, gr.Group, n))
		}
	}
	if len(kinds) > 0 {
		slices.Sort(kinds)
		add(corev1.NamespaceContentRemaining, ReasonSomeResourcesRemain,
			"Some resources are remaining: "+strings.Join(kinds, ", "))
	}
	var fins []string
	for f, n := range o.finalizers {
		fins = append(fins, fmt.Sprintf("%s in %d resource instances", f, n))
	}
	if len(fins) > 0 {
		slices.Sort(fins)
		add(corev1.NamespaceFinalizersRemaining, ReasonSomeFinalizersRemain,
			"Some content in the namespace has finalizers remaining: "+strings.Join(fins, ", "))
	}
	return out
}

// setConditions sets the five deletion conditions of status from
// failures, the rest to their ok variants, and reports whether anything
// changed. A condition's lastTransitionTime moves only when its status
// does; conditions of other types are kept as they are.
func setConditions(status *corev1.NamespaceStatus, failures []corev1.NamespaceCondition, now metav1.Time) bool {
	changed := false
	for _, t := range conditionTypes {
		want := corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, Reason: okConditions[t].reason, Message: okConditions[t].message}
		if i := slices.IndexFunc(failures, func(c corev1.NamespaceCondition) bool { return c.Type == t }); i >= 0 {
			want = failures[i]
		}
		i := slices.IndexFunc(status.Conditions, func(c corev1.NamespaceCondition) bool { return c.Type == t })
		if i < 0 {
			want.LastTransitionTime = now
			status.Conditions = append(status.Conditions, want)
			changed = true
			continue
		}
		have := &status.Conditions[i]
		if have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
			continue
		}
		want.LastTransitionTime = have.LastTransitionTime
		if have.Status != want.Status {
			want.LastTransitionTime = now
		}
		*have = want
		changed = true
	}
	return changed
}

package generic

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The finalizers through which a delete asks the garbage collector to
// handle an object's dependents before the object goes: orphan them
// (strip their ownerReferences to it), or delete those that block it
// first. The server only sets them; the collector removes them.
const (
	finalizerOrphan     = metav1.FinalizerOrphanDependents
	finalizerForeground = metav1.FinalizerDeleteDependents
)

// propagation is what a delete asked for its dependents: a policy, the
// legacy orphanDependents flag, or neither.
type propagation struct {
	policy metav1.DeletionPropagation // "" when not given
	orphan *bool                      // orphanDependents, when given
	// orphanByDefault: the kind orphans when neither is given
	// (registry.OrphanStrategy).
	orphanByDefault bool
}

// withGCFinalizers returns the object's finalizers as the delete leaves
// them, and whether they changed. As kube-apiserver decides: an explicit
// policy wins; without one, the finalizers already there stand (a
// second delete without options changes nothing), and without those
// the kind's default applies; Background removes both.
func (p propagation) withGCFinalizers(u *unstructured.Unstructured) ([]string, bool) {
	fins := u.GetFinalizers()
	has := func(f string) bool { return slices.Contains(fins, f) }
	orphan, foreground := has(finalizerOrphan), has(finalizerForeground)
	switch {
	case p.policy != "":
		orphan = p.policy == metav1.DeletePropagationOrphan
		foreground = p.policy == metav1.DeletePropagationForeground
	case p.orphan != nil:
		orphan, foreground = *p.orphan, false
	case !orphan && !foreground && p.orphanByDefault:
		orphan = true
	}
	out := slices.DeleteFunc(slices.Clone(fins), func(f string) bool {
		return f == finalizerOrphan || f == finalizerForeground
	})
	if orphan {
		out = append(out, finalizerOrphan)
	}
	if foreground {
		out = append(out, finalizerForeground)
	}
	return out, !sameSet(fins, out)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

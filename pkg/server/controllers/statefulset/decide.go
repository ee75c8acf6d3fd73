package statefulset

import (
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Kind is what a Step does to its pod.
type Kind int

const (
	// Create makes the pod (its claims first).
	Create Kind = iota
	// Replace deletes a pod that finished, so a later pass recreates it.
	Replace
	// Tend keeps a live pod in shape: creates its missing claims when
	// it is pending (EnsureClaims), fixes its identity or volumes (Fix)
	// and brings its claims' owners in line with the retention policy
	// (when the set has claim templates).
	Tend
	// Release sets the owners of a scaled-down pod's claims by the
	// retention policy before the pod goes.
	Release
	// Condemn deletes a pod beyond the replica count.
	Condemn
	// Roll deletes a pod of an old revision, to be recreated at the
	// update revision.
	Roll
)

func (k Kind) String() string {
	return [...]string{"Create", "Replace", "Tend", "Release", "Condemn", "Roll"}[k]
}

// Step is one thing a pass does to one pod.
type Step struct {
	Kind         Kind
	Pod          *corev1.Pod
	EnsureClaims bool
	Fix          bool
}

// Group is steps run together: under Parallel at once (in slow-start
// batches), under OrderedReady one by one. A pass stops after a group
// in which a step failed.
type Group []Step

// Plan is what a pass does and the status it leaves.
type Plan struct {
	Groups []Group
	Status appsv1.StatefulSetStatus
	// Waiting names the pod an OrderedReady pass stopped at, if any.
	Waiting string
}

// Revisions are the two templates a pass works with: the current one
// (pods not yet updated) and the update one (what set's template is now).
type Revisions struct {
	Current, Update       *appsv1.ControllerRevision
	CurrentSet, UpdateSet *appsv1.StatefulSet
	CollisionCount        int32
}

// Decide is a pass over set and the pods it owns, as kube's StatefulSet
// control loop makes it:
//  1. every ordinal in range: replace a finished pod, create a missing
//     one, then keep it in shape; under OrderedReady stop at the first
//     pod created, terminating, or not yet Running, Ready and available;
//  2. pods beyond the range: set their claims' owners, then delete them,
//     under OrderedReady only the highest, once every lower pod is
//     healthy, waiting for it to go before the next;
//  3. RollingUpdate: delete the highest pod at or above the partition
//     whose revision is old, once every one above it is healthy.
func Decide(set *appsv1.StatefulSet, revs Revisions, pods []*corev1.Pod, now time.Time) Plan {
	cur, upd := revs.Current.Name, revs.Update.Name
	plan := Plan{Status: appsv1.StatefulSetStatus{
		ObservedGeneration: set.Generation, CurrentRevision: cur, UpdateRevision: upd,
		CollisionCount: &revs.CollisionCount,
	}}
	countPods(&plan.Status, set, cur, upd, now, pods)

	start, n := startOrdinal(set), int(replicas(set))
	inRangePods := make([]*corev1.Pod, n)
	var condemned []*corev1.Pod
	for _, p := range pods {
		switch o := Ordinal(p); {
		case inRange(set, p):
			inRangePods[o-start] = p
		case o >= 0:
			condemned = append(condemned, p)
		}
	}
	for i := range inRangePods {
		if inRangePods[i] == nil {
			inRangePods[i] = versionedPod(revs, start+i)
		}
	}
	sort.SliceStable(condemned, func(i, j int) bool { return Ordinal(condemned[i]) > Ordinal(condemned[j]) })
	var firstUnhealthy *corev1.Pod
	for _, p := range inRangePods {
		if !healthy(p) && firstUnhealthy == nil {
			firstUnhealthy = p
		}
	}
	for i := len(condemned) - 1; i >= 0 && firstUnhealthy == nil; i-- {
		if !healthy(condemned[i]) {
			firstUnhealthy = condemned[i]
		}
	}
	if set.DeletionTimestamp != nil {
		return plan
	}
	ordered := set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
	d := decider{set: set, revs: revs, ordered: ordered, now: now, plan: &plan}
	done := func() Plan {
		countPods(&plan.Status, set, cur, upd, now, inRangePods, condemned)
		return plan
	}

	// 1. the ordinals in range.
	var g Group
	for _, p := range inRangePods {
		steps, stop := d.replica(p)
		if ordered {
			for _, s := range steps {
				plan.Groups = append(plan.Groups, Group{s})
			}
			if stop {
				return done()
			}
			continue
		}
		g = append(g, steps...)
	}
	d.flush(g)

	// 2. the ordinals beyond it.
	if len(set.Spec.VolumeClaimTemplates) > 0 {
		g = nil
		for _, p := range condemned {
			g = d.each(g, Step{Kind: Release, Pod: p})
		}
		d.flush(g)
	}
	g = nil
	for _, p := range condemned {
		if terminating(p) {
			if ordered {
				plan.Waiting = p.Name
				return done()
			}
			continue
		}
		if ordered && p != firstUnhealthy && (!runningAndReady(p) || !available(p, set.Spec.MinReadySeconds, now)) {
			// A pod ready but not yet available is healthy, so there may
			// be no unhealthy pod to name.
			plan.Waiting = p.Name
			if firstUnhealthy != nil {
				plan.Waiting = firstUnhealthy.Name
			}
			return done()
		}
		if ordered {
			plan.Groups = append(plan.Groups, Group{{Kind: Condemn, Pod: p}})
			return done()
		}
		g = append(g, Step{Kind: Condemn, Pod: p})
	}
	d.flush(g)
	countPods(&plan.Status, set, cur, upd, now, inRangePods, condemned)

	// 3. the rolling update.
	if set.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		return plan
	}
	partition := 0
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		partition = int(*ru.Partition)
	}
	for i := len(inRangePods) - 1; i >= partition; i-- {
		p := inRangePods[i]
		if Revision(p) != upd && !terminating(p) {
			plan.Groups = append(plan.Groups, Group{{Kind: Roll, Pod: p}})
			return plan
		}
		if !healthy(p) {
			plan.Waiting = p.Name
			return plan
		}
	}
	return plan
}

type decider struct {
	set     *appsv1.StatefulSet
	revs    Revisions
	ordered bool
	now     time.Time
	plan    *Plan
}

// each adds s to the parallel group g, or as a group of its own under
// OrderedReady.
func (d *decider) each(g Group, s Step) Group {
	if d.ordered {
		d.plan.Groups = append(d.plan.Groups, Group{s})
		return g
	}
	return append(g, s)
}

func (d *decider) flush(g Group) {
	if len(g) > 0 {
		d.plan.Groups = append(d.plan.Groups, g)
	}
}

// replica is what one ordinal in range needs, and whether an
// OrderedReady pass stops there.
func (d *decider) replica(p *corev1.Pod) ([]Step, bool) {
	set := d.set
	if finished(p) {
		if !terminating(p) {
			return []Step{{Kind: Replace, Pod: p}}, true
		}
		return nil, true
	}
	if !created(p) {
		return []Step{{Kind: Create, Pod: p}}, true
	}
	var steps []Step
	hasClaims := len(set.Spec.VolumeClaimTemplates) > 0
	pending := p.Status.Phase == corev1.PodPending && hasClaims
	if d.ordered {
		if pending {
			steps = append(steps, Step{Kind: Tend, Pod: p, EnsureClaims: true})
		}
		if terminating(p) || !runningAndReady(p) || !available(p, set.Spec.MinReadySeconds, d.now) {
			d.plan.Waiting = p.Name
			return steps, true
		}
		pending = false
	}
	fix := !identityMatches(set, p) || !storageMatches(set, p)
	if pending || fix || hasClaims {
		steps = append(steps, Step{Kind: Tend, Pod: p, EnsureClaims: pending, Fix: fix})
	}
	return steps, false
}

// versionedPod is the pod to create at ordinal: at the current revision
// below the partition (or, with no rollingUpdate settings, below the
// count of current replicas), at the update revision otherwise. The
// test reads as kube's does, operator precedence included.
func versionedPod(revs Revisions, ordinal int) *corev1.Pod {
	cs := revs.CurrentSet
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	start := startOrdinal(cs)
	if cs.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		(ru == nil && ordinal < start+int(cs.Status.CurrentReplicas)) ||
		(ru != nil && ru.Partition != nil && ordinal < start+int(*ru.Partition)) {
		return newPod(cs, ordinal, revs.Current.Name)
	}
	return newPod(revs.UpdateSet, ordinal, revs.Update.Name)
}

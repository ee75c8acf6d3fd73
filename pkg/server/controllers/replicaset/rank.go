package replicaset

import (
	"math"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// deletionCostAnnotation ranks a pod for scale-down: lower costs go first.
const deletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// DeletionOrder returns pods sorted the way kube's ReplicaSet controller
// picks pods to delete, first to go first:
//  1. not yet scheduled before scheduled;
//  2. Pending before Unknown before Running;
//  3. not ready before ready;
//  4. lower pod-deletion-cost before higher;
//  5. more related pods on the same node before fewer (related are the
//     pods of the ReplicaSet, or of every ReplicaSet of its Deployment);
//  6. ready for less time before longer;
//  7. more container restarts before fewer;
//  8. newer before older.
//
// Times (6 and 8) compare by the power of two their age falls in, so
// that pods of about the same age are taken at random (by UID) rather
// than strictly youngest first, as with kube's LogarithmicScaleDown.
func DeletionOrder(pods, related []*corev1.Pod, now time.Time) []*corev1.Pod {
	onNode := map[string]int{}
	for _, p := range related {
		if p.Spec.NodeName != "" && Active(p) {
			onNode[p.Spec.NodeName]++
		}
	}
	r := ranked{pods: append([]*corev1.Pod(nil), pods...), now: now}
	r.rank = make([]int, len(r.pods))
	for i, p := range r.pods {
		r.rank[i] = onNode[p.Spec.NodeName]
	}
	sort.Sort(r)
	return r.pods
}

type ranked struct {
	pods []*corev1.Pod
	rank []int
	now  time.Time
}

func (r ranked) Len() int { return len(r.pods) }

func (r ranked) Swap(i, j int) {
	r.pods[i], r.pods[j] = r.pods[j], r.pods[i]
	r.rank[i], r.rank[j] = r.rank[j], r.rank[i]
}

func (r ranked) Less(i, j int) bool {
	a, b := r.pods[i], r.pods[j]
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if pa, pb := phaseOrder(a.Status.Phase), phaseOrder(b.Status.Phase); pa != pb {
		return pa < pb
	}
	readyA, readyB := readySince(a), readySince(b)
	if (readyA != nil) != (readyB != nil) {
		return readyA == nil
	}
	if ca, cb := deletionCost(a), deletionCost(b); ca != cb {
		return ca < cb
	}
	if r.rank[i] != r.rank[j] {
		return r.rank[i] > r.rank[j]
	}
	if readyA != nil && readyB != nil && !readyA.Equal(readyB) {
		if less, decided := r.younger(a, b, *readyA, *readyB); decided {
			return less
		}
	}
	if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
		return ra > rb
	}
	if ta, tb := a.CreationTimestamp, b.CreationTimestamp; !ta.Equal(&tb) {
		if less, decided := r.younger(a, b, ta, tb); decided {
			return less
		}
	}
	return false
}

// younger compares two times of pods a and b: the later (the younger
// pod) goes first, a zero time before any. With a known now, times in the
// same power of two of age tie, and the tie goes by UID.
func (r ranked) younger(a, b *corev1.Pod, ta, tb metav1.Time) (less, decided bool) {
	if ta.IsZero() || tb.IsZero() {
		return ta.IsZero(), true
	}
	if r.now.IsZero() {
		return ta.After(tb.Time), true
	}
	if d := ageBucket(r.now, ta.Time) - ageBucket(r.now, tb.Time); d != 0 {
		return d < 0, true
	}
	return a.UID < b.UID, true
}

// ageBucket is the power of two t's age at now falls in; -1 for no age.
func ageBucket(now, t time.Time) int {
	d := now.Sub(t)
	if d <= 0 {
		return -1
	}
	return int(math.Log2(float64(d)))
}

func phaseOrder(p corev1.PodPhase) int {
	switch p {
	case corev1.PodPending:
		return 0
	case corev1.PodUnknown:
		return 1
	case corev1.PodRunning:
		return 2
	}
	return 3
}

// readySince is when pod's Ready condition turned True; nil when it is
// not ready.
func readySince(pod *corev1.Pod) *metav1.Time {
	for i := range pod.Status.Conditions {
		c := &pod.Status.Conditions[i]
		if c.Type == corev1.PodReady {
			if c.Status != corev1.ConditionTrue {
				return nil
			}
			return &c.LastTransitionTime
		}
	}
	return nil
}

// deletionCost reads the pod-deletion-cost annotation; a missing or
// malformed one (kube refuses a leading "+" or zero too) costs 0.
func deletionCost(pod *corev1.Pod) int32 {
	v, ok := pod.Annotations[deletionCostAnnotation]
	if !ok || v == "" || v[0] == '+' || (v[0] == '0' && v != "0") || (v[0] == '-' && len(v) > 1 && v[1] == '0') {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// maxRestarts is the highest restart count among the pod's regular
// containers and its sidecars.
func maxRestarts(pod *corev1.Pod) int32 {
	var n int32
	for _, cs := range pod.Status.ContainerStatuses {
		n = max(n, cs.RestartCount)
	}
	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
		}
	}
	for _, cs := range pod.Status.InitContainerStatuses {
		if sidecars[cs.Name] {
			n = max(n, cs.RestartCount)
		}
	}
	return n
}

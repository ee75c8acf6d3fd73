package job

import (
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The delay before a failed pod is replaced: 10 s after one failure,
// doubling with each further failure since the last success, up to 10
// minutes (kube-controller-manager v1.33's DefaultJobPodFailureBackOff
// and MaxJobPodFailureBackOff; the Job documentation's "six minutes"
// predates the latter).
const (
	backoffBase = 10 * time.Second
	backoffMax  = 10 * time.Minute
)

// Backoff is what a Job's past passes learnt of its pods' failures:
// how many failed since the last success, and when the latest did.
type Backoff struct {
	Failures    int32
	LastFailure time.Time // zero with no failures
}

// Next is the record once the newly finished pods are counted: a
// success resets it, keeping only failures after the latest success.
func (b Backoff) Next(succeeded, failed []*corev1.Pod) Backoff {
	if len(succeeded) == 0 && len(failed) == 0 {
		return b
	}
	failedAt := finishTimes(failed)
	if len(succeeded) == 0 {
		return Backoff{Failures: b.Failures + int32(len(failed)), LastFailure: failedAt[len(failedAt)-1]}
	}
	succeededAt := finishTimes(succeeded)
	lastSuccess := succeededAt[len(succeededAt)-1]
	var next Backoff
	for i := len(failedAt) - 1; i >= 0 && failedAt[i].After(lastSuccess); i-- {
		if next.Failures == 0 {
			next.LastFailure = failedAt[i]
		}
		next.Failures++
	}
	return next
}

// Wait is how long after now the next pod may be created.
func (b Backoff) Wait(now time.Time) time.Duration {
	return backoffWait(b.Failures, b.LastFailure, now)
}

// backoffWait is the delay left after failures, the latest at last.
func backoffWait(failures int32, last, now time.Time) time.Duration {
	if failures <= 0 {
		return 0
	}
	d := backoffBase
	for i := int32(1); i < failures && d < backoffMax; i++ {
		d *= 2
	}
	d = min(d, backoffMax)
	if since := now.Sub(last); since < d {
		return d - since
	}
	return 0
}

func finishTimes(pods []*corev1.Pod) []time.Time {
	out := make([]time.Time, len(pods))
	for i, p := range pods {
		out[i] = FinishTime(p)
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// FinishTime is when pod finished: its last container to terminate
// (unknown while any has not, sidecars included), else when it stopped
// being ready, else when its deletion's grace period began, else its
// creation.
func FinishTime(pod *corev1.Pod) time.Time {
	if t, ok := containersFinished(pod); ok {
		return t
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	if pod.DeletionTimestamp != nil {
		grace := int64(0)
		if pod.DeletionGracePeriodSeconds != nil {
			grace = *pod.DeletionGracePeriodSeconds
		}
		return pod.DeletionTimestamp.Add(-time.Duration(grace) * time.Second)
	}
	return pod.CreationTimestamp.Time
}

func containersFinished(pod *corev1.Pod) (time.Time, bool) {
	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
		}
	}
	var latest time.Time
	seen := false
	statuses := slices.Concat(pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses)
	for i, s := range statuses {
		if i >= len(pod.Status.ContainerStatuses) && !sidecars[s.Name] {
			continue
		}
		t := s.State.Terminated
		if t == nil || t.FinishedAt.IsZero() {
			return time.Time{}, false
		}
		seen = true
		if t.FinishedAt.After(latest) {
			latest = t.FinishedAt.Time
		}
	}
	return latest, seen
}

// backoffs keeps each Job's Backoff between passes, in memory as kube
// does: a restarted controller starts every Job afresh.
type backoffs struct {
	mu    sync.Mutex
	byJob map[types.NamespacedName]Backoff
}

func (b *backoffs) get(job types.NamespacedName) Backoff {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byJob[job]
}

func (b *backoffs) set(job types.NamespacedName, r Backoff) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byJob == nil {
		b.byJob = map[types.NamespacedName]Backoff{}
	}
	b.byJob[job] = r
}

func (b *backoffs) forget(job types.NamespacedName) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.byJob, job)
}

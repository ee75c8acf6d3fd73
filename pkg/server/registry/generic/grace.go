package generic

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// graceState is what a delete does about a grace period.
type graceState int

const (
	// graceNone: no grace period; the object goes at once unless
	// finalizers hold it.
	graceNone graceState = iota
	// graceStarted: u's deletionTimestamp was set to the end of a new or
	// shortened grace period; u must be written, not deleted.
	graceStarted
	// gracePending: a grace period already runs and the request does
	// not shorten it; nothing changes.
	gracePending
)

// graceful applies a kind's graceful deletion to u, as kube-apiserver's
// BeforeDelete does: a first delete sets deletionTimestamp to now plus
// the period; a later one may only shorten the period, moving the
// timestamp back (not into the past); a period of 0 deletes at once.
func (s *Store) graceful(res *registry.Resource, u *unstructured.Unstructured, requested *int64) graceState {
	gs, ok := res.Strategy.(registry.GracefulDeleteStrategy)
	if !ok {
		return graceNone
	}
	if requested != nil && *requested < 0 {
		one := int64(1)
		requested = &one
	}
	now := s.now()
	if ts := u.GetDeletionTimestamp(); ts != nil {
		cur := u.GetDeletionGracePeriodSeconds()
		if cur == nil || *cur == 0 {
			return graceNone
		}
		if requested == nil || *requested >= *cur {
			return gracePending
		}
		period := *requested
		if period == 0 && !held(res, u) {
			return graceNone
		}
		end := ts.Add(-time.Duration(*cur) * time.Second).Add(time.Duration(period) * time.Second)
		if end.Before(now) {
			end = now
			if period != 0 {
				// Asked for a grace period that has already passed: the
				// shortest one still lets the owner (the kubelet) act.
				period = 1
			}
		}
		setDeletion(u, end, period)
		return graceStarted
	}
	period := gs.GracePeriod(u.Object, requested)
	if period <= 0 {
		return graceNone
	}
	setDeletion(u, now.Add(time.Duration(period)*time.Second), period)
	if g := u.GetGeneration(); g > 0 {
		u.SetGeneration(g + 1)
	}
	return graceStarted
}

func setDeletion(u *unstructured.Unstructured, at time.Time, period int64) {
	ts := metav1.NewTime(at)
	u.SetDeletionTimestamp(&ts)
	u.SetDeletionGracePeriodSeconds(&period)
}

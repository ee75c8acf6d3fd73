package leaderelection

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// LeaseClient is what the elector needs of a client; *client.Client has
// it. Errors are recognised with client.IsNotFound, IsConflict and
// IsAlreadyExists.
type LeaseClient interface {
	Get(ctx context.Context, key types.NamespacedName, obj client.Object) error
	Create(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
	Update(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
}

// record is the part of a Lease the election is about. The fields and
// their meaning are client-go's, so its candidates and ours can share a
// Lease.
type record struct {
	holder string
	// durationSeconds is the holder's LeaseDuration. client-go
	// candidates judge expiry by it.
	durationSeconds int32
	acquire, renew  time.Time
	transitions     int32
}

// same reports whether two records are the same observation. A holder
// that renews changes renewTime, so an unchanged record means a silent
// holder.
func (r record) same(o record) bool {
	return r.holder == o.holder && r.durationSeconds == o.durationSeconds &&
		r.acquire.Equal(o.acquire) && r.renew.Equal(o.renew) && r.transitions == o.transitions
}

func recordOf(spec *coordinationv1.LeaseSpec) record {
	var r record
	if spec.HolderIdentity != nil {
		r.holder = *spec.HolderIdentity
	}
	if spec.LeaseDurationSeconds != nil {
		r.durationSeconds = *spec.LeaseDurationSeconds
	}
	if spec.LeaseTransitions != nil {
		r.transitions = *spec.LeaseTransitions
	}
	if spec.AcquireTime != nil {
		r.acquire = spec.AcquireTime.Time
	}
	if spec.RenewTime != nil {
		r.renew = spec.RenewTime.Time
	}
	return r
}

// writeTo sets the election fields of spec and leaves the rest (strategy,
// preferredHolder) as another writer left them. All five are written
// even when empty, as client-go does: its readers take a missing
// holderIdentity and an empty one alike, but older tools do not.
func (r record) writeTo(spec *coordinationv1.LeaseSpec) {
	holder, d, tr := r.holder, r.durationSeconds, r.transitions
	spec.HolderIdentity = &holder
	spec.LeaseDurationSeconds = &d
	spec.LeaseTransitions = &tr
	spec.AcquireTime = &metav1.MicroTime{Time: r.acquire}
	spec.RenewTime = &metav1.MicroTime{Time: r.renew}
}

// durationSeconds rounds up: client-go candidates trust the lease's
// number, and a sub-second LeaseDuration written as 0 would tell them
// the lease is already expired.
func durationSeconds(d time.Duration) int32 {
	return int32((d + time.Second - 1) / time.Second)
}

// releasedRecord is what a leader leaves when it lets go: no holder, a
// one-second lease, the transition count kept (client-go writes the
// same, so its candidates take over at once too).
func releasedRecord(transitions int32, now time.Time) record {
	return record{durationSeconds: 1, acquire: now, renew: now, transitions: transitions}
}

// leaseLock reads and writes one Lease. Every update carries the
// resourceVersion of the copy last read or written, so it succeeds only
// if nobody wrote in between: a 409 means someone did.
type leaseLock struct {
	c     LeaseClient
	key   types.NamespacedName
	lease *coordinationv1.Lease // nil until the first successful read or write
}

func (l *leaseLock) get(ctx context.Context) (record, error) {
	lease := &coordinationv1.Lease{}
	if err := l.c.Get(ctx, l.key, lease); err != nil {
		return record{}, err
	}
	l.lease = lease
	return recordOf(&lease.Spec), nil
}

// create creates the Lease holding r and returns the record as the
// server stored it (times at microsecond precision).
func (l *leaseLock) create(ctx context.Context, r record) (record, error) {
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: l.key.Namespace, Name: l.key.Name}}
	r.writeTo(&lease.Spec)
	if err := l.c.Create(ctx, lease); err != nil {
		return record{}, err
	}
	l.lease = lease
	return recordOf(&lease.Spec), nil
}

// update writes r over the copy last seen and returns the record as the
// server stored it. Before any read there is nothing to compare and swap
// against: errNoLease.
func (l *leaseLock) update(ctx context.Context, r record) (record, error) {
	if l.lease == nil {
		return record{}, errNoLease
	}
	lease := l.lease.DeepCopy()
	r.writeTo(&lease.Spec)
	if err := l.c.Update(ctx, lease); err != nil {
		return record{}, err
	}
	l.lease = lease
	return recordOf(&lease.Spec), nil
}

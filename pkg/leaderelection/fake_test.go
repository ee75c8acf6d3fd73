package leaderelection

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// fakeLeases is one Lease in memory with the server's compare-and-swap
// rules, for tests that run under testing/synctest (no network there).
type fakeLeases struct {
	mu    sync.Mutex
	lease *coordinationv1.Lease // nil: none
	rv    int
	// fail, when set, may refuse a call ("get", "create", "update")
	// before it happens.
	fail func(op string) error
	// writes logs every successful write, in order.
	writes []record
}

func statusErr(reason metav1.StatusReason, code int32) error {
	return &client.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Reason: reason, Code: code}}
}

func (f *fakeLeases) check(op string) error {
	f.mu.Lock()
	fail := f.fail
	f.mu.Unlock()
	if fail != nil {
		return fail(op)
	}
	return nil
}

func (f *fakeLeases) Get(ctx context.Context, key types.NamespacedName, obj client.Object) error {
	if err := f.check("get"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lease == nil {
		return statusErr(metav1.StatusReasonNotFound, http.StatusNotFound)
	}
	f.lease.DeepCopyInto(obj.(*coordinationv1.Lease))
	return nil
}

func (f *fakeLeases) Create(ctx context.Context, obj client.Object, _ ...client.WriteOption) error {
	if err := f.check("create"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lease != nil {
		return statusErr(metav1.StatusReasonAlreadyExists, http.StatusConflict)
	}
	f.store(obj.(*coordinationv1.Lease))
	return nil
}

func (f *fakeLeases) Update(ctx context.Context, obj client.Object, _ ...client.WriteOption) error {
	if err := f.check("update"); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lease == nil {
		return statusErr(metav1.StatusReasonNotFound, http.StatusNotFound)
	}
	if obj.GetResourceVersion() != f.lease.ResourceVersion {
		return statusErr(metav1.StatusReasonConflict, http.StatusConflict)
	}
	f.store(obj.(*coordinationv1.Lease))
	return nil
}

// store keeps a copy of l as the new version and hands the stored
// state back through l, as the client does with the server's answer.
// Times are cut to microseconds as the wire cuts them.
func (f *fakeLeases) store(l *coordinationv1.Lease) {
	f.rv++
	l.ResourceVersion = strconv.Itoa(f.rv)
	for _, t := range []*metav1.MicroTime{l.Spec.AcquireTime, l.Spec.RenewTime} {
		if t != nil {
			t.Time = t.Truncate(time.Microsecond)
		}
	}
	f.lease = l.DeepCopy()
	f.writes = append(f.writes, recordOf(&l.Spec))
}

// set writes r as another writer would, ignoring versions.
func (f *fakeLeases) set(r record) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lock"}}
	if f.lease != nil {
		l = f.lease.DeepCopy()
	}
	r.writeTo(&l.Spec)
	f.store(l)
}

// edit bumps the version without touching the election fields, as a
// label change would.
func (f *fakeLeases) edit() {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.lease.DeepCopy()
	l.Labels = map[string]string{"edited": strconv.Itoa(f.rv)}
	f.store(l)
}

func (f *fakeLeases) current() record {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lease == nil {
		return record{}
	}
	return recordOf(&f.lease.Spec)
}

func (f *fakeLeases) setFail(fn func(op string) error) {
	f.mu.Lock()
	f.fail = fn
	f.mu.Unlock()
}

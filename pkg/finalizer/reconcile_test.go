package finalizer

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

const fin = "widgets.test.setpoint.dev/cleanup"

// recorder is a Handler whose paths count their calls and answer what
// the test sets.
type recorder struct {
	applies, cleanups int
	applyErr          error
	cleanupErr        error
	cleanupResult     reconcile.Result
	// onApply checks what Apply may rely on.
	onApply func(*Widget)
}

func (r *recorder) handler() Handler[*Widget] {
	return Handler[*Widget]{
		Apply: func(_ context.Context, w *Widget) (reconcile.Result, error) {
			r.applies++
			if r.onApply != nil {
				r.onApply(w)
			}
			return reconcile.Result{}, r.applyErr
		},
		Cleanup: func(context.Context, *Widget) (reconcile.Result, error) {
			r.cleanups++
			return r.cleanupResult, r.cleanupErr
		},
	}
}

// run reads w afresh, as a reconciler does, and reconciles it.
func run(t *testing.T, w *Widget, r *recorder) (reconcile.Result, error) {
	t.Helper()
	cur := get(t, w)
	if cur == nil {
		t.Fatalf("%s is gone", w.Name)
	}
	return Reconcile(t.Context(), testClient, cur, fin, r.handler())
}

// TestAddBeforeApply: the first reconcile stores the finalizer before
// Apply runs; later ones write nothing and just apply.
func TestAddBeforeApply(t *testing.T) {
	w := createWidget(t)
	r := &recorder{onApply: func(obj *Widget) {
		if !Has(obj, fin) {
			t.Error("Apply got an object without the finalizer")
		}
		if stored := get(t, w); !Has(stored, fin) {
			t.Error("Apply ran before the finalizer was stored")
		}
	}}
	if _, err := run(t, w, r); err != nil {
		t.Fatal(err)
	}
	first := get(t, w)
	if !slices.Equal(first.Finalizers, []string{fin}) {
		t.Fatalf("finalizers = %v, want [%s]", first.Finalizers, fin)
	}
	if first.Spec.Size != 1 {
		t.Errorf("spec changed by the finalizer write: %+v", first.Spec)
	}
	if _, err := run(t, w, r); err != nil {
		t.Fatal(err)
	}
	if rv := get(t, w).ResourceVersion; rv != first.ResourceVersion {
		t.Errorf("second reconcile wrote: resourceVersion %s -> %s", first.ResourceVersion, rv)
	}
	if r.applies != 2 || r.cleanups != 0 {
		t.Errorf("applies, cleanups = %d, %d; want 2, 0", r.applies, r.cleanups)
	}
}

// TestCleanupBeforeDelete: a deleted object stays while Cleanup fails or
// says it is still under way, and goes once Cleanup is done.
func TestCleanupBeforeDelete(t *testing.T) {
	w := createWidget(t)
	r := &recorder{}
	if _, err := run(t, w, r); err != nil {
		t.Fatal(err)
	}
	deleteWidget(t, w)
	if got := get(t, w); got == nil || got.DeletionTimestamp == nil {
		t.Fatalf("after delete: %+v, want it held by the finalizer", got)
	}

	cleanupFailed := errors.New("cloud API unavailable")
	r.cleanupErr = cleanupFailed
	if _, err := run(t, w, r); !errors.Is(err, cleanupFailed) {
		t.Fatalf("failing cleanup: err = %v, want %v", err, cleanupFailed)
	}
	r.cleanupErr, r.cleanupResult = nil, reconcile.Result{RequeueAfter: time.Minute}
	res, err := run(t, w, r)
	if err != nil || res.RequeueAfter != time.Minute {
		t.Fatalf("cleanup under way: %v, %v; want requeue after 1m", res, err)
	}
	if got := get(t, w); !Has(got, fin) {
		t.Fatal("finalizer removed before cleanup was done")
	}

	r.cleanupResult = reconcile.Result{}
	if res, err := run(t, w, r); err != nil || !res.IsZero() {
		t.Fatalf("finished cleanup: %v, %v", res, err)
	}
	if got := get(t, w); got != nil {
		t.Fatalf("object still there after cleanup: %+v", got)
	}
	if r.applies != 1 || r.cleanups != 3 {
		t.Errorf("applies, cleanups = %d, %d; want 1, 3", r.applies, r.cleanups)
	}
}

// TestOtherFinalizersKept: adding and removing ours leaves another
// controller's finalizer, which then still holds the object.
func TestOtherFinalizersKept(t *testing.T) {
	const other = "other.example.com/hold"
	w := createWidget(t, other)
	r := &recorder{}
	if _, err := run(t, w, r); err != nil {
		t.Fatal(err)
	}
	if got := get(t, w).Finalizers; !slices.Equal(got, []string{other, fin}) {
		t.Fatalf("finalizers = %v", got)
	}
	deleteWidget(t, w)
	if _, err := run(t, w, r); err != nil {
		t.Fatal(err)
	}
	got := get(t, w)
	if got == nil || !slices.Equal(got.Finalizers, []string{other}) {
		t.Fatalf("after cleanup: %+v, want held by %s only", got, other)
	}
	// Our part is done: more reconciles of the held object do nothing.
	if _, err := run(t, w, r); err != nil {
		t.Fatal(err)
	}
	if r.cleanups != 1 {
		t.Errorf("cleanups = %d, want 1", r.cleanups)
	}
	if _, err := Remove(t.Context(), testClient, got, other); err != nil {
		t.Fatal(err)
	}
	if get(t, w) != nil {
		t.Error("object still there after its last finalizer went")
	}
}

// TestDeletedBeforeFirstReconcile: an object deleted before it was ever
// reconciled gets no finalizer and neither path runs.
func TestDeletedBeforeFirstReconcile(t *testing.T) {
	const other = "other.example.com/hold"
	w := createWidget(t, other)
	deleteWidget(t, w)
	r := &recorder{}
	if _, err := run(t, w, r); err != nil {
		t.Fatal(err)
	}
	got := get(t, w)
	if Has(got, fin) || r.applies != 0 || r.cleanups != 0 {
		t.Errorf("finalizers %v, applies %d, cleanups %d; want untouched", got.Finalizers, r.applies, r.cleanups)
	}
	if _, err := Add(t.Context(), testClient, got, fin); !errors.Is(err, ErrDeleting) {
		t.Errorf("Add to a deleting object: %v, want ErrDeleting", err)
	}
	if _, err := Remove(t.Context(), testClient, got, other); err != nil {
		t.Fatal(err)
	}
}

// TestConflicts: a stale copy neither gains nor loses the finalizer over
// someone else's write; the error is a Conflict, and a fresh read
// succeeds. Losing the race on removal runs Cleanup again.
func TestConflicts(t *testing.T) {
	w := createWidget(t)
	stale := get(t, w)
	label(t, w, "first")
	r := &recorder{}
	if _, err := Reconcile(t.Context(), testClient, stale, fin, r.handler()); !client.IsConflict(err) {
		t.Fatalf("adding with a stale copy: err = %v, want a Conflict", err)
	}
	if got := get(t, w); Has(got, fin) || got.Labels["edit"] != "first" || r.applies != 0 {
		t.Fatalf("after the conflict: %+v, applies %d; want the other write kept and no apply", got.ObjectMeta, r.applies)
	}
	if _, err := run(t, w, r); err != nil {
		t.Fatal(err)
	}

	deleteWidget(t, w)
	stale = get(t, w)
	label(t, w, "second")
	if _, err := Reconcile(t.Context(), testClient, stale, fin, r.handler()); !client.IsConflict(err) {
		t.Fatalf("removing with a stale copy: err = %v, want a Conflict", err)
	}
	if got := get(t, w); got == nil || got.Labels["edit"] != "second" {
		t.Fatalf("after the conflict: %+v, want the object held with the other write", got)
	}
	if _, err := run(t, w, r); err != nil {
		t.Fatal(err)
	}
	if get(t, w) != nil {
		t.Error("object still there")
	}
	if r.cleanups != 2 {
		t.Errorf("cleanups = %d, want 2 (at least once, again after the lost race)", r.cleanups)
	}
}

// label stands for another writer changing w.
func label(t *testing.T, w *Widget, v string) {
	t.Helper()
	patch := []byte(`{"metadata":{"labels":{"edit":"` + v + `"}}}`)
	if err := testClient.Patch(t.Context(), &Widget{ObjectMeta: w.ObjectMeta}, types.MergePatchType, patch); err != nil {
		t.Fatal(err)
	}
}

// TestErrorsPassThrough: a terminal error from Apply stays terminal; a
// misconfiguration is terminal and writes nothing.
func TestErrorsPassThrough(t *testing.T) {
	w := createWidget(t)
	invalid := errors.New("spec.size must be positive")
	r := &recorder{applyErr: reconcile.TerminalError(invalid)}
	if _, err := run(t, w, r); !reconcile.IsTerminal(err) || !errors.Is(err, invalid) {
		t.Errorf("terminal Apply error came back as %v", err)
	}

	plain := createWidget(t)
	cur := get(t, plain)
	_, err := Reconcile(t.Context(), testClient, cur, "cleanup", r.handler())
	if !reconcile.IsTerminal(err) || !errors.Is(err, ErrInvalidName) {
		t.Errorf("unqualified name: %v, want a terminal ErrInvalidName", err)
	}
	_, err = Reconcile(t.Context(), testClient, cur, fin, Handler[*Widget]{Apply: r.handler().Apply})
	if !reconcile.IsTerminal(err) || !errors.Is(err, ErrNoHandler) {
		t.Errorf("no Cleanup: %v, want a terminal ErrNoHandler", err)
	}
	if got := get(t, plain); got.ResourceVersion != cur.ResourceVersion {
		t.Error("a refused reconcile wrote the object")
	}
	if _, err := Add(t.Context(), testClient, &Widget{}, fin); !errors.Is(err, ErrNoResourceVersion) {
		t.Errorf("Add to an object never read: %v, want ErrNoResourceVersion", err)
	}
}

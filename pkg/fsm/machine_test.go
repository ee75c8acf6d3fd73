package fsm

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/finalizer"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

const fin = "widgets.test.setpoint.dev/cleanup"

// runs counts the states run, by name, in order.
type runs struct{ names []string }

func (r *runs) count(name string) int {
	n := 0
	for _, s := range r.names {
		if s == name {
			n++
		}
	}
	return n
}

// state returns a State that records its runs and decides with decide.
func (r *runs) state(name string, next []string, decide func(*Widget) Outcome) State[*Widget] {
	return State[*Widget]{Name: name, Next: next, Run: func(_ context.Context, w *Widget) Outcome {
		r.names = append(r.names, name)
		return decide(w)
	}}
}

func newMachine(t *testing.T, cfg Config[*Widget]) *Machine[*Widget] {
	t.Helper()
	cfg.Client = testClient
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func reconcileOnce(t *testing.T, m *Machine[*Widget], w *Widget) (reconcile.Result, error) {
	t.Helper()
	return m.Reconcile(t.Context(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: w.Name}})
}

// cond returns the stored condition typ of w, failing if it is absent.
func cond(t *testing.T, w *Widget, typ string) metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(w.Status.Conditions, typ)
	if c == nil {
		t.Fatalf("no condition %s in %+v", typ, w.Status.Conditions)
	}
	return *c
}

func wantCond(t *testing.T, w *Widget, typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
	t.Helper()
	c := cond(t, w, typ)
	if c.Status != status || c.Reason != reason || c.ObservedGeneration != w.Generation {
		t.Errorf("%s = %s/%s gen %d, want %s/%s gen %d (message %q)", typ, c.Status, c.Reason, c.ObservedGeneration, status, reason, w.Generation, c.Message)
	}
	return c
}

// sizeMachine: Configure -> Scale -> Verify; Scale waits for size >= 2.
// Deletion: Release -> Forget.
func sizeMachine(t *testing.T, r *runs) *Machine[*Widget] {
	return newMachine(t, Config[*Widget]{
		States: []State[*Widget]{
			r.state("Configured", []string{"Scaled"}, func(*Widget) Outcome { return Next("Scaled", "", "") }),
			r.state("Scaled", []string{"Verified"}, func(w *Widget) Outcome {
				if w.Spec.Size < 2 {
					return Wait(30*time.Second, "TooSmall", "size must reach 2")
				}
				return Next("Verified", "Scaled", "")
			}),
			r.state("Verified", nil, func(*Widget) Outcome { return Done("", "all good") }),
		},
		DeletionStates: []State[*Widget]{
			r.state("Released", []string{"Forgotten"}, func(*Widget) Outcome { return Next("Forgotten", "", "") }),
			r.state("Forgotten", nil, func(*Widget) Outcome {
				if r.count("Forgotten") == 1 {
					return Wait(0, "StillThere", "waiting for the backend to forget it")
				}
				return Done("", "")
			}),
		},
		Finalizer: fin,
	})
}

// TestWalk: a first reconcile adds the finalizer and walks to the end;
// every condition, Ready included, is True at the object's generation.
// A second reconcile walks again and writes nothing.
func TestWalk(t *testing.T) {
	r := &runs{}
	m := sizeMachine(t, r)
	w := createWidget(t, WidgetSpec{Size: 3})
	if res, err := reconcileOnce(t, m, w); err != nil || !res.IsZero() {
		t.Fatalf("reconcile: %v, %v", res, err)
	}
	got := get(t, w)
	if !finalizer.Has(got, fin) {
		t.Error("no finalizer")
	}
	wantCond(t, got, "Configured", metav1.ConditionTrue, ReasonSucceeded) // the default reason
	wantCond(t, got, "Scaled", metav1.ConditionTrue, "Scaled")
	wantCond(t, got, "Verified", metav1.ConditionTrue, ReasonSucceeded)
	wantCond(t, got, ReadyCondition, metav1.ConditionTrue, ReasonReady)
	if got.Generation != 1 {
		t.Errorf("generation = %d", got.Generation)
	}

	if _, err := reconcileOnce(t, m, w); err != nil {
		t.Fatal(err)
	}
	if again := get(t, w); again.ResourceVersion != got.ResourceVersion {
		t.Errorf("unchanged walk wrote: resourceVersion %s -> %s", got.ResourceVersion, again.ResourceVersion)
	}
	if want := []string{"Configured", "Scaled", "Verified", "Configured", "Scaled", "Verified"}; !slices.Equal(r.names, want) {
		t.Errorf("runs = %v, want %v (each reconcile from the initial state)", r.names, want)
	}
}

// TestWaitThenSpecChange: a waiting state stops the walk with its
// requeue; states after it are Pending; Ready carries the waiting
// state's reason. A spec change bumps the generation, which every
// condition follows, and a condition whose status stays keeps its
// lastTransitionTime.
func TestWaitThenSpecChange(t *testing.T) {
	r := &runs{}
	m := sizeMachine(t, r)
	w := createWidget(t, WidgetSpec{Size: 1})
	res, err := reconcileOnce(t, m, w)
	if err != nil || res.RequeueAfter != 30*time.Second {
		t.Fatalf("reconcile: %v, %v; want a requeue after 30s", res, err)
	}
	got := get(t, w)
	configured := wantCond(t, got, "Configured", metav1.ConditionTrue, ReasonSucceeded)
	wantCond(t, got, "Scaled", metav1.ConditionFalse, "TooSmall")
	wantCond(t, got, "Verified", metav1.ConditionUnknown, ReasonPending)
	ready := wantCond(t, got, ReadyCondition, metav1.ConditionFalse, "TooSmall")
	if ready.Message != "Scaled: size must reach 2" {
		t.Errorf("Ready message = %q", ready.Message)
	}
	if r.count("Verified") != 0 {
		t.Error("a state after the waiting one ran")
	}

	got.Spec.Size = 2
	if err := testClient.Update(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	if got.Generation != 2 {
		t.Fatalf("generation after a spec change = %d, want 2", got.Generation)
	}
	if res, err := reconcileOnce(t, m, w); err != nil || !res.IsZero() {
		t.Fatalf("reconcile: %v, %v", res, err)
	}
	got = get(t, w)
	for _, typ := range []string{"Configured", "Scaled", "Verified", ReadyCondition} {
		if c := cond(t, got, typ); c.Status != metav1.ConditionTrue || c.ObservedGeneration != 2 {
			t.Errorf("%s = %s at generation %d, want True at 2", typ, c.Status, c.ObservedGeneration)
		}
	}
	if c := cond(t, got, "Configured"); !c.LastTransitionTime.Equal(&configured.LastTransitionTime) {
		t.Errorf("Configured stayed True but its lastTransitionTime moved: %v -> %v", configured.LastTransitionTime, c.LastTransitionTime)
	}
}

// TestBranches: a finished walk removes the conditions of the branch it
// did not take, so Ready is True on either path.
func TestBranches(t *testing.T) {
	r := &runs{}
	m := newMachine(t, Config[*Widget]{States: []State[*Widget]{
		r.state("Chosen", []string{"Small", "Large"}, func(w *Widget) Outcome {
			if w.Spec.Mode == "large" {
				return Next("Large", "", "")
			}
			return Next("Small", "", "")
		}),
		r.state("Small", nil, func(*Widget) Outcome { return Done("", "") }),
		r.state("Large", nil, func(*Widget) Outcome { return Done("", "") }),
	}})
	w := createWidget(t, WidgetSpec{Mode: "small"})
	if _, err := reconcileOnce(t, m, w); err != nil {
		t.Fatal(err)
	}
	got := get(t, w)
	wantCond(t, got, "Small", metav1.ConditionTrue, ReasonSucceeded)
	if meta.FindStatusCondition(got.Status.Conditions, "Large") != nil {
		t.Error("the branch not taken has a condition")
	}
	wantCond(t, got, ReadyCondition, metav1.ConditionTrue, ReasonReady)
	if finalizer.Has(got, fin) || len(got.Finalizers) > 0 {
		t.Errorf("a machine without deletion states added finalizers %v", got.Finalizers)
	}

	got.Spec.Mode = "large"
	if err := testClient.Update(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileOnce(t, m, w); err != nil {
		t.Fatal(err)
	}
	got = get(t, w)
	wantCond(t, got, "Large", metav1.ConditionTrue, ReasonSucceeded)
	if meta.FindStatusCondition(got.Status.Conditions, "Small") != nil {
		t.Error("the branch left keeps its condition")
	}
	wantCond(t, got, ReadyCondition, metav1.ConditionTrue, ReasonReady)
}

// TestFail: a state's error ends the walk, is on its condition and on
// Ready, and comes back as a StateError; terminal stays terminal.
func TestFail(t *testing.T) {
	invalid := errors.New("spec.mode must be small or large")
	for _, tc := range []struct {
		name     string
		err      error
		terminal bool
	}{
		{"retried", errors.New("backend unavailable"), false},
		{"terminal", reconcile.TerminalError(invalid), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &runs{}
			m := newMachine(t, Config[*Widget]{States: []State[*Widget]{
				r.state("Checked", []string{"Applied"}, func(*Widget) Outcome { return Fail(tc.err, "Invalid") }),
				r.state("Applied", nil, func(*Widget) Outcome { return Done("", "") }),
			}})
			w := createWidget(t, WidgetSpec{})
			_, err := reconcileOnce(t, m, w)
			var se *StateError
			if !errors.As(err, &se) || se.State != "Checked" || !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want a StateError of Checked wrapping %v", err, tc.err)
			}
			if reconcile.IsTerminal(err) != tc.terminal {
				t.Errorf("IsTerminal = %v, want %v", !tc.terminal, tc.terminal)
			}
			got := get(t, w)
			c := wantCond(t, got, "Checked", metav1.ConditionFalse, "Invalid")
			if c.Message != tc.err.Error() {
				t.Errorf("message = %q, want the error", c.Message)
			}
			wantCond(t, got, "Applied", metav1.ConditionUnknown, ReasonPending)
			wantCond(t, got, ReadyCondition, metav1.ConditionFalse, "Invalid")
		})
	}
}

// TestMachineErrors: the machine's own failures (an undeclared
// transition, a walk that never ends, a state that decides nothing)
// end the walk with their sentinel, are shown on Ready, and only the
// cycle is worth retrying.
func TestMachineErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		states   func(r *runs) []State[*Widget]
		want     error
		reason   string
		terminal bool
		runs     []string
	}{
		{
			name: "undeclared transition",
			states: func(r *runs) []State[*Widget] {
				return []State[*Widget]{
					r.state("A", []string{"B"}, func(*Widget) Outcome { return Next("C", "", "") }),
					r.state("B", []string{"C"}, func(*Widget) Outcome { return Done("", "") }),
					r.state("C", nil, func(*Widget) Outcome { return Done("", "") }),
				}
			},
			want: ErrUndeclaredTransition, reason: ReasonUndeclaredTransition, terminal: true,
			runs: []string{"A"},
		},
		{
			name: "cycle",
			states: func(r *runs) []State[*Widget] {
				return []State[*Widget]{
					r.state("A", []string{"B"}, func(*Widget) Outcome { return Next("B", "", "") }),
					r.state("B", []string{"A"}, func(*Widget) Outcome { return Next("A", "", "") }),
				}
			},
			want: ErrTooManySteps, reason: ReasonTooManySteps, terminal: false,
			runs: []string{"A", "B", "A", "B"}, // the default limit: twice the states
		},
		{
			name: "no outcome",
			states: func(r *runs) []State[*Widget] {
				return []State[*Widget]{r.state("A", nil, func(*Widget) Outcome { return Outcome{} })}
			},
			want: ErrNoOutcome, reason: ReasonNoOutcome, terminal: true,
			runs: []string{"A"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &runs{}
			m := newMachine(t, Config[*Widget]{States: tc.states(r)})
			w := createWidget(t, WidgetSpec{})
			_, err := reconcileOnce(t, m, w)
			if !errors.Is(err, tc.want) || reconcile.IsTerminal(err) != tc.terminal {
				t.Fatalf("err = %v, want %v (terminal %v)", err, tc.want, tc.terminal)
			}
			if !slices.Equal(r.names, tc.runs) {
				t.Errorf("runs = %v, want %v", r.names, tc.runs)
			}
			ready := wantCond(t, get(t, w), ReadyCondition, metav1.ConditionFalse, tc.reason)
			if ready.Message != err.Error() {
				t.Errorf("Ready message = %q, want %q", ready.Message, err.Error())
			}
		})
	}
}

// TestDeletion: once the object is being deleted only the deletion
// states run; it stays while they wait, Ready says Deleting, and it goes
// when they are done.
func TestDeletion(t *testing.T) {
	r := &runs{}
	m := sizeMachine(t, r)
	w := createWidget(t, WidgetSpec{Size: 2})
	if _, err := reconcileOnce(t, m, w); err != nil {
		t.Fatal(err)
	}
	if err := testClient.Delete(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	r.names = nil
	if res, err := reconcileOnce(t, m, w); err != nil || !res.IsZero() {
		t.Fatalf("first deletion walk: %v, %v", res, err)
	}
	got := get(t, w)
	if got == nil || !finalizer.Has(got, fin) {
		t.Fatalf("object released while a deletion state waits: %+v", got)
	}
	wantCond(t, got, "Released", metav1.ConditionTrue, ReasonSucceeded)
	wantCond(t, got, "Forgotten", metav1.ConditionFalse, "StillThere")
	wantCond(t, got, "Verified", metav1.ConditionTrue, ReasonSucceeded) // as the last apply walk left it
	wantCond(t, got, ReadyCondition, metav1.ConditionFalse, ReasonDeleting)

	if _, err := reconcileOnce(t, m, w); err != nil {
		t.Fatal(err)
	}
	if got := get(t, w); got != nil {
		t.Fatalf("object still there after the deletion walk finished: %+v", got.ObjectMeta)
	}
	if want := []string{"Released", "Forgotten", "Released", "Forgotten"}; !slices.Equal(r.names, want) {
		t.Errorf("runs = %v, want %v", r.names, want)
	}
	if res, err := reconcileOnce(t, m, w); err != nil || !res.IsZero() {
		t.Errorf("reconciling a gone object: %v, %v", res, err)
	}
}

// TestDeletedBeforeFirstWalk: an object deleted before any walk (held by
// another finalizer) gets neither our finalizer nor any state run.
func TestDeletedBeforeFirstWalk(t *testing.T) {
	const other = "other.example.com/hold"
	r := &runs{}
	m := sizeMachine(t, r)
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "w-", Finalizers: []string{other}}}
	if err := testClient.Create(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	if err := testClient.Delete(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileOnce(t, m, w); err != nil {
		t.Fatal(err)
	}
	got := get(t, w)
	if len(r.names) != 0 || !slices.Equal(got.Finalizers, []string{other}) {
		t.Errorf("runs %v, finalizers %v; want none and [%s]", r.names, got.Finalizers, other)
	}
	if _, err := finalizer.Remove(t.Context(), testClient, got, other); err != nil {
		t.Fatal(err)
	}
}

// TestStatusConflict: the status write is conditional on what the
// reconcile read; another writer in between makes it a Conflict, and the
// next reconcile writes it.
func TestStatusConflict(t *testing.T) {
	interfere := true
	var w *Widget
	m := newMachine(t, Config[*Widget]{States: []State[*Widget]{{
		Name: "Labelled",
		Run: func(ctx context.Context, _ *Widget) Outcome {
			if interfere {
				interfere = false
				patch := []byte(`{"metadata":{"labels":{"edit":"other"}}}`)
				if err := testClient.Patch(ctx, &Widget{ObjectMeta: w.ObjectMeta}, types.MergePatchType, patch); err != nil {
					return Fail(err, "")
				}
			}
			return Done("", "")
		},
	}}})
	w = createWidget(t, WidgetSpec{})
	if _, err := reconcileOnce(t, m, w); !client.IsConflict(err) {
		t.Fatalf("err = %v, want a Conflict", err)
	}
	got := get(t, w)
	if got.Labels["edit"] != "other" || len(got.Status.Conditions) != 0 {
		t.Fatalf("after the conflict: labels %v, conditions %v", got.Labels, got.Status.Conditions)
	}
	if _, err := reconcileOnce(t, m, w); err != nil {
		t.Fatal(err)
	}
	wantCond(t, get(t, w), ReadyCondition, metav1.ConditionTrue, ReasonReady)
}

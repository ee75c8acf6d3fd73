package fsm

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func done(context.Context, *Widget) Outcome { return Done("", "") }

func TestTransitions(t *testing.T) {
	m, err := New(Config[*Widget]{
		Client: testClient,
		States: []State[*Widget]{
			{Name: "Validated", Next: []string{"Provisioned", "Rejected"}, Run: done},
			{Name: "Rejected", Run: done},
			{Name: "Provisioned", Next: []string{"Validated"}, Run: done},
		},
		DeletionStates: []State[*Widget]{
			{Name: "Deprovisioned", Next: []string{"Released"}, Run: done},
			{Name: "Released", Run: done},
		},
		Finalizer: "example.com/cleanup",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Transition{
		{"Validated", "Provisioned"}, {"Validated", "Rejected"},
		{"Provisioned", "Validated"},
		{"Deprovisioned", "Released"},
	}
	if got := m.Transitions(); !slices.Equal(got, want) {
		t.Errorf("Transitions() = %v, want %v", got, want)
	}
}

func TestNewRejects(t *testing.T) {
	st := func(name string, next ...string) State[*Widget] {
		return State[*Widget]{Name: name, Next: next, Run: done}
	}
	tests := []struct {
		name string
		cfg  Config[*Widget]
	}{
		{"no states", Config[*Widget]{}},
		{"unnamed state", Config[*Widget]{States: []State[*Widget]{{Run: done}}}},
		{"no Run", Config[*Widget]{States: []State[*Widget]{{Name: "A"}}}},
		{"duplicate name", Config[*Widget]{States: []State[*Widget]{st("A", "A"), st("A")}}},
		{"duplicate condition", Config[*Widget]{States: []State[*Widget]{st("A", "B"), {Name: "B", Condition: "A", Run: done}}}},
		{"state owning Ready", Config[*Widget]{States: []State[*Widget]{st("Ready")}}},
		{"invalid condition type", Config[*Widget]{States: []State[*Widget]{{Name: "A", Condition: "has space", Run: done}}}},
		{"unknown next", Config[*Widget]{States: []State[*Widget]{st("A", "B")}}},
		{"unreachable", Config[*Widget]{States: []State[*Widget]{st("A"), st("B")}}},
		{"deletion without finalizer", Config[*Widget]{States: []State[*Widget]{st("A")}, DeletionStates: []State[*Widget]{st("D")}}},
		{"unqualified finalizer", Config[*Widget]{States: []State[*Widget]{st("A")}, DeletionStates: []State[*Widget]{st("D")}, Finalizer: "cleanup"}},
		{"finalizer without deletion", Config[*Widget]{States: []State[*Widget]{st("A")}, Finalizer: "example.com/cleanup"}},
		{"name shared across graphs", Config[*Widget]{States: []State[*Widget]{st("A")}, DeletionStates: []State[*Widget]{st("A")}, Finalizer: "example.com/cleanup"}},
		{"deletion next into apply graph", Config[*Widget]{States: []State[*Widget]{st("A")}, DeletionStates: []State[*Widget]{st("D", "A")}, Finalizer: "example.com/cleanup"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Client = testClient
			if _, err := New(tt.cfg); !errors.Is(err, ErrInvalidMachine) {
				t.Errorf("New = %v, want ErrInvalidMachine", err)
			}
		})
	}
	if _, err := New(Config[*Widget]{States: []State[*Widget]{st("A")}}); !errors.Is(err, ErrInvalidMachine) {
		t.Errorf("New without a client = %v, want ErrInvalidMachine", err)
	}
}

func TestDeriveReady(t *testing.T) {
	c := func(typ string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg}
	}
	T, F, U := metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	types := []string{"A", "B", "C"}
	tests := []struct {
		name            string
		conds           []metav1.Condition
		status          metav1.ConditionStatus
		reason, message string
	}{
		{"all true", []metav1.Condition{c("A", T, "Ok", ""), c("B", T, "Ok", ""), c("C", T, "Ok", "")}, T, ReasonReady, "every state's condition is True"},
		{"absent types skipped", []metav1.Condition{c("A", T, "Ok", ""), c("C", T, "Ok", "")}, T, ReasonReady, "every state's condition is True"},
		{"first non-True in declared order", []metav1.Condition{c("C", F, "Broken", "c"), c("B", U, "Pending", "b"), c("A", T, "Ok", "")}, U, "Pending", "B: b"},
		{"false", []metav1.Condition{c("A", T, "Ok", ""), c("B", F, "Waiting", "")}, F, "Waiting", "B is False"},
		{"other conditions ignored", []metav1.Condition{c("Ready", F, "Old", ""), c("Foreign", F, "X", ""), c("A", T, "Ok", "")}, T, ReasonReady, "every state's condition is True"},
		{"none", nil, U, ReasonPending, "no state has run"},
	}
	for _, tt := range tests {
		got := deriveReady(tt.conds, types, 7)
		if got.Type != ReadyCondition || got.Status != tt.status || got.Reason != tt.reason || got.Message != tt.message || got.ObservedGeneration != 7 {
			t.Errorf("%s: got %+v, want %s/%s %q at generation 7", tt.name, got, tt.status, tt.reason, tt.message)
		}
	}
}

// TestWalkLoops: a loop that ends within the step limit is a walk like
// any other; MaxSteps bounds one that does not.
func TestWalkLoops(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var runs int
	attempt := State[*Widget]{Name: "Attempted", Next: []string{"Checked"}, Run: func(context.Context, *Widget) Outcome {
		runs++
		return Next("Checked", "", "")
	}}
	check := func(passAt int) State[*Widget] {
		return State[*Widget]{Name: "Checked", Next: []string{"Attempted"}, Run: func(context.Context, *Widget) Outcome {
			if runs >= passAt {
				return Done("", "")
			}
			return Next("Attempted", "", "")
		}}
	}
	for _, tc := range []struct {
		name     string
		maxSteps int
		passAt   int
		wantErr  error
		wantRuns int
	}{
		{"ends within the limit", 0, 2, nil, 2}, // 4 states run; the limit is 4
		{"over the default limit", 0, 3, ErrTooManySteps, 2},
		{"over a set limit", 5, 9, ErrTooManySteps, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs = 0
			g, err := newGraph("apply", []State[*Widget]{attempt, check(tc.passAt)}, tc.maxSteps, map[string]string{})
			if err != nil {
				t.Fatal(err)
			}
			w := g.walk(t.Context(), &Widget{}, log)
			if !errors.Is(w.err, tc.wantErr) || runs != tc.wantRuns {
				t.Errorf("walk: err %v, attempts %d; want %v, %d", w.err, runs, tc.wantErr, tc.wantRuns)
			}
		})
	}
}

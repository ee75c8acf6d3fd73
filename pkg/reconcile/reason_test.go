package reconcile

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
)

func TestReasonsMerge(t *testing.T) {
	upd := func(name string) Reason {
		return Reason{Trigger: TriggerUpdate, Kind: "ConfigMap", Namespace: "ns", Name: name}
	}
	tests := []struct {
		name        string
		add         []Reason
		want        string
		wantDropped int
	}{
		{"empty", nil, "", 0},
		{"one", []Reason{upd("a")}, "update ConfigMap ns/a", 0},
		{"same cause merges", []Reason{upd("a"), upd("a"), upd("a")}, "update ConfigMap ns/a x3", 0},
		{"order of first occurrence", []Reason{upd("b"), {Trigger: TriggerRequeue}, upd("b")}, "update ConfigMap ns/b x2, requeue", 0},
		{"counts add", []Reason{{Trigger: TriggerRetry, Count: 2}, {Trigger: TriggerRetry, Count: 3}}, "retry x5", 0},
		{"cluster-scoped", []Reason{{Trigger: TriggerDelete, Kind: "Namespace", Name: "x"}}, "delete Namespace x", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs Reasons
			for _, r := range tt.add {
				rs.Add(r)
			}
			if got := rs.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := rs.Dropped(); got != tt.wantDropped {
				t.Errorf("Dropped() = %d, want %d", got, tt.wantDropped)
			}
		})
	}
}

func TestReasonsBounded(t *testing.T) {
	var rs Reasons
	for i := range MaxReasons + 5 {
		rs.Add(Reason{Trigger: TriggerUpdate, Kind: "Pod", Name: fmt.Sprint(i)})
	}
	rs.Add(Reason{Trigger: TriggerUpdate, Kind: "Pod", Name: "0"}) // held: merges
	rs.Add(Reason{Trigger: TriggerUpdate, Kind: "Pod", Name: "99"})
	if got, want := rs.Len(), MaxReasons; got != want {
		t.Errorf("Len() = %d, want %d", got, want)
	}
	if got, want := rs.Dropped(), 6; got != want {
		t.Errorf("Dropped() = %d, want %d", got, want)
	}
	if got := rs.List()[0].Count; got != 2 {
		t.Errorf("first reason count = %d, want 2", got)
	}

	var merged Reasons
	merged.Add(Reason{Trigger: TriggerRequeue})
	merged.Merge(rs)
	if got, want := merged.Dropped(), 6+1; got != want {
		t.Errorf("merged Dropped() = %d, want %d", got, want)
	}
	if !merged.Has(TriggerRequeue) || merged.Has(TriggerResync) {
		t.Errorf("Has: %v", merged)
	}
}

func TestReasonsContext(t *testing.T) {
	if got := ReasonsFrom(context.Background()); got.Len() != 0 {
		t.Errorf("reasons of a bare context = %v, want none", got)
	}
	var rs Reasons
	rs.Add(Reason{Trigger: TriggerResync})
	if got := ReasonsFrom(WithReasons(context.Background(), rs)).String(); got != "resync" {
		t.Errorf("ReasonsFrom(WithReasons) = %q, want resync", got)
	}
}

func TestTerminalError(t *testing.T) {
	base := fmt.Errorf("spec.value is invalid")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", base, false},
		{"terminal", TerminalError(base), true},
		{"wrapped terminal", fmt.Errorf("reconciling: %w", TerminalError(base)), true},
	}
	for _, tt := range tests {
		if got := IsTerminal(tt.err); got != tt.want {
			t.Errorf("%s: IsTerminal = %v, want %v", tt.name, got, tt.want)
		}
	}
	if TerminalError(nil) != nil {
		t.Error("TerminalError(nil) != nil")
	}
}

func TestLogger(t *testing.T) {
	if Logger(context.Background()) != slog.Default() {
		t.Error("Logger of a bare context is not slog.Default()")
	}
	l := slog.New(slog.DiscardHandler)
	if Logger(WithLogger(context.Background(), l)) != l {
		t.Error("Logger(WithLogger(l)) != l")
	}
}

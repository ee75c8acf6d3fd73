package registry

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fakeBudgets is registry.Budgets over a slice; conflicts fails that
// many writes with ErrConflict first.
type fakeBudgets struct {
	items     []map[string]any
	conflicts int
	writes    []map[string]any
}

func (f *fakeBudgets) List(context.Context, string) ([]map[string]any, error) { return f.items, nil }
func (f *fakeBudgets) Get(_ context.Context, _, name string) (map[string]any, error) {
	for _, b := range f.items {
		if nestedMap(b, false, "metadata")["name"] == name {
			return b, nil
		}
	}
	return nil, errors.New("not found")
}
func (f *fakeBudgets) UpdateStatus(_ context.Context, b map[string]any) error {
	if f.conflicts > 0 {
		f.conflicts--
		return ErrConflict
	}
	f.writes = append(f.writes, b)
	return nil
}

func testBudget(name string, spec, status map[string]any) map[string]any {
	if spec["selector"] == nil {
		spec["selector"] = map[string]any{"matchLabels": map[string]any{"app": "web"}}
	}
	return map[string]any{"metadata": map[string]any{"name": name, "namespace": "d", "generation": int64(1)}, "spec": spec, "status": status}
}

func testPod(phase string, ready bool) map[string]any {
	status := "False"
	if ready {
		status = "True"
	}
	return map[string]any{"metadata": map[string]any{"name": "p", "namespace": "d", "labels": map[string]any{"app": "web"}},
		"status": map[string]any{"phase": phase, "conditions": []any{map[string]any{"type": "Ready", "status": status}}}}
}

func TestEvictsFreely(t *testing.T) {
	deleting := testPod("Running", true)
	deleting["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:00:00Z"
	tests := []struct {
		name      string
		pod       map[string]any
		free, pin bool
	}{
		{"running", testPod("Running", true), false, false},
		{"pending", testPod("Pending", false), true, true},
		{"succeeded", testPod("Succeeded", false), true, false},
		{"failed", testPod("Failed", false), true, false},
		{"deleting", deleting, true, false},
	}
	for _, tt := range tests {
		free, pin := podStrategy{}.EvictsFreely(tt.pod)
		if free != tt.free || pin != tt.pin {
			t.Errorf("%s: free, pin = %v, %v; want %v, %v", tt.name, free, pin, tt.free, tt.pin)
		}
	}
}

func TestChargeBudgets(t *testing.T) {
	allowed := map[string]any{"observedGeneration": int64(1), "disruptionsAllowed": int64(1), "currentHealthy": int64(2), "desiredHealthy": int64(1)}
	none := map[string]any{"observedGeneration": int64(1), "disruptionsAllowed": int64(0), "currentHealthy": int64(1), "desiredHealthy": int64(1)}
	short := map[string]any{"observedGeneration": int64(1), "disruptionsAllowed": int64(0), "currentHealthy": int64(0), "desiredHealthy": int64(1)}
	tests := []struct {
		name      string
		pod       map[string]any
		budgets   []map[string]any
		conflicts int
		pin       bool
		writes    int
		err       string
	}{
		{"no budget", testPod("Running", true), nil, 0, false, 0, ""},
		{"other selector", testPod("Running", true), []map[string]any{testBudget("b", map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "db"}}}, none)}, 0, false, 0, ""},
		{"allowed", testPod("Running", true), []map[string]any{testBudget("b", map[string]any{}, allowed)}, 0, false, 1, ""},
		{"allowed after conflicts", testPod("Running", true), []map[string]any{testBudget("b", map[string]any{}, allowed)}, 3, false, 1, ""},
		{"blocked", testPod("Running", true), []map[string]any{testBudget("b", map[string]any{}, none)}, 0, false, 0, "Cannot evict pod as it would violate the pod's disruption budget."},
		{"unready, budget met", testPod("Running", false), []map[string]any{testBudget("b", map[string]any{}, none)}, 0, true, 0, ""},
		{"unready, budget short", testPod("Running", false), []map[string]any{testBudget("b", map[string]any{}, short)}, 0, false, 0, "Cannot evict pod as it would violate the pod's disruption budget."},
		{"unready, AlwaysAllow", testPod("Running", false), []map[string]any{testBudget("b", map[string]any{"unhealthyPodEvictionPolicy": "AlwaysAllow"}, short)}, 0, true, 0, ""},
		{"unseen generation", testPod("Running", true), []map[string]any{testBudget("b", map[string]any{}, map[string]any{"disruptionsAllowed": int64(1)})}, 0, false, 0, "Cannot evict pod as it would violate the pod's disruption budget."},
		{"negative", testPod("Running", true), []map[string]any{testBudget("b", map[string]any{}, map[string]any{"observedGeneration": int64(1), "disruptionsAllowed": int64(-1)})}, 0, false, 0, "pdb disruptions allowed is negative"},
		{"two budgets", testPod("Running", true), []map[string]any{testBudget("a", map[string]any{}, allowed), testBudget("b", map[string]any{}, allowed)}, 0, false, 0, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeBudgets{items: tt.budgets, conflicts: tt.conflicts}
			pin, _, err := podStrategy{}.ChargeBudgets(context.Background(), time.Unix(0, 0), tt.pod, f, false)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if pin != tt.pin || gotErr != tt.err || len(f.writes) != tt.writes {
				t.Errorf("pin %v, err %q, writes %d; want %v, %q, %d", pin, gotErr, len(f.writes), tt.pin, tt.err, tt.writes)
			}
			for _, w := range f.writes {
				st := nestedMap(w, false, "status")
				if st["disruptionsAllowed"] != int64(0) || nestedMap(st, false, "disruptedPods")["p"] == nil {
					t.Errorf("written status %v, want one fewer disruption and p recorded", st)
				}
			}
		})
	}
}

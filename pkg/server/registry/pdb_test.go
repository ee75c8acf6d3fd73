package registry

import (
	"strings"
	"testing"
	"time"
)

// TestPDBValidation holds budgets to kube's spec rules.
func TestPDBValidation(t *testing.T) {
	sel := map[string]any{"matchLabels": map[string]any{"app": "web"}}
	tests := []struct {
		name string
		spec map[string]any
		want string // "" when valid; else a substring of the errors
	}{
		{"min int", map[string]any{"minAvailable": int64(1), "selector": sel}, ""},
		{"max percent", map[string]any{"maxUnavailable": "50%", "selector": sel}, ""},
		{"neither", map[string]any{"selector": sel}, ""},
		{"both", map[string]any{"minAvailable": int64(1), "maxUnavailable": int64(1)}, "spec: Invalid value: "},
		{"both message", map[string]any{"minAvailable": int64(1), "maxUnavailable": int64(1)}, "minAvailable and maxUnavailable cannot be both set"},
		{"negative", map[string]any{"minAvailable": int64(-1)}, "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"},
		{"over 100%", map[string]any{"maxUnavailable": "150%"}, `spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%`},
		{"not a percent", map[string]any{"maxUnavailable": "half"}, `spec.maxUnavailable: Invalid value: "half": a valid percent string must be`},
		{"bad selector", map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"a b": "x"}}}, "spec.selector.matchLabels: Invalid value: \"a b\""},
		{"policy", map[string]any{"unhealthyPodEvictionPolicy": "Sometimes"}, `spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"`},
		{"policy ok", map[string]any{"unhealthyPodEvictionPolicy": "AlwaysAllow"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
				"metadata": map[string]any{"name": "b", "namespace": "d"}, "spec": tt.spec}
			errs := pdbStrategy{}.PrepareForCreate(time.Time{}, obj)
			got := errs.ToAggregate()
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("errors %v, want none", got)
			case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
				t.Errorf("errors %v, want %q", got, tt.want)
			}
		})
	}
}

// TestPDBStatusKeepsSpec: status writes keep the stored spec and refuse
// negative counts; spec writes keep the stored status.
func TestPDBStatusKeepsSpec(t *testing.T) {
	old := map[string]any{"spec": map[string]any{"minAvailable": int64(1)}, "status": map[string]any{"disruptionsAllowed": int64(1)}}
	obj := map[string]any{"spec": map[string]any{"minAvailable": int64(3)}, "status": map[string]any{"disruptionsAllowed": int64(-1)}}
	errs := pdbStrategy{}.PrepareForStatusUpdate(obj, old)
	if got := obj["spec"].(map[string]any)["minAvailable"]; got != int64(1) {
		t.Errorf("status write changed the spec to %v", got)
	}
	if agg := errs.ToAggregate(); agg == nil || !strings.Contains(agg.Error(), "status.disruptionsAllowed: Invalid value: -1") {
		t.Errorf("errors %v, want disruptionsAllowed negative", agg)
	}
	obj = map[string]any{"spec": map[string]any{"minAvailable": int64(2)}, "status": map[string]any{"disruptionsAllowed": int64(5)}}
	if errs := (pdbStrategy{}).PrepareForUpdate(time.Time{}, obj, old); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := obj["status"].(map[string]any)["disruptionsAllowed"]; got != int64(1) {
		t.Errorf("spec write changed the status to %v", got)
	}
}

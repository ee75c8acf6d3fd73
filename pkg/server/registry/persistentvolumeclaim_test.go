package registry

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func claimObject(t *testing.T, body string) map[string]any {
	t.Helper()
	obj, _, err := builtin("", "persistentvolumeclaims").Decode([]byte(body), FieldStrict)
	if err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return obj
}

// claim is a claim named data with spec (a JSON object's members).
func claim(spec string) string {
	return `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data","namespace":"d"},"spec":{` + spec + `}}`
}

const claimSpec = `"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}`

// TestClaimCreate holds new claims to kube's defaults and rules.
func TestClaimCreate(t *testing.T) {
	tests := []struct {
		name, body string
		want       string // "" when valid
	}{
		{"valid", claim(claimSpec), ""},
		{"no access modes", claim(`"resources":{"requests":{"storage":"1Gi"}}`), "spec.accessModes: Required value: at least 1 access mode is required"},
		{"unknown access mode", claim(`"accessModes":["ReadEverything"],"resources":{"requests":{"storage":"1Gi"}}`),
			`spec.accessModes: Unsupported value: "ReadEverything": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`},
		{"once pod and others", claim(`"accessModes":["ReadWriteOncePod","ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}`),
			"spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"},
		{"no storage", claim(`"accessModes":["ReadWriteOnce"]`), "spec.resources[storage]: Required value"},
		{"zero storage", claim(`"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"0"}}`), `spec.resources[storage]: Invalid value: "0": must be greater than zero`},
		{"bad class", claim(claimSpec + `,"storageClassName":"Fast_1"`), `spec.storageClassName: Invalid value: "Fast_1"`},
		{"bad volume mode", claim(claimSpec + `,"volumeMode":"Raw"`), `spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"`},
		{"data source in the core group", claim(claimSpec + `,"dataSource":{"kind":"Secret","name":"s"}`),
			"spec.dataSource: Invalid value: \"Secret\": must be 'PersistentVolumeClaim' when referencing the default apiGroup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := claimObject(t, tt.body)
			got := builtin("", "persistentvolumeclaims").Strategy.PrepareForCreate(time.Time{}, obj).ToAggregate()
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("errors %v, want none", got)
			case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
				t.Errorf("errors %v, want %q", got, tt.want)
			}
		})
	}
}

func TestClaimDefaults(t *testing.T) {
	obj := claimObject(t, claim(claimSpec+`,"dataSource":{"kind":"PersistentVolumeClaim","name":"src"}`))
	obj["status"] = map[string]any{"phase": "Bound"}
	if errs := builtin("", "persistentvolumeclaims").Strategy.PrepareForCreate(time.Time{}, obj); len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	tests := []struct{ path, want string }{
		{"spec.volumeMode", "Filesystem"},
		{"status.phase", "Pending"},
		{"spec.dataSourceRef.name", "src"},
		{"spec.dataSourceRef.kind", "PersistentVolumeClaim"},
	}
	// StorageObjectInUseProtection's finalizer.
	if fins, _ := Lookup(obj, "metadata.finalizers"); fmt.Sprint(fins) != "[kubernetes.io/pvc-protection]" {
		t.Errorf("finalizers %v", fins)
	}
	for _, tt := range tests {
		if got, _ := Lookup(obj, tt.path); got != tt.want {
			t.Errorf("%s = %v, want %q", tt.path, got, tt.want)
		}
	}
}

// TestClaimUpdate: the spec is fixed but for a bound claim's storage
// request, which may grow; the volume name may be set once.
func TestClaimUpdate(t *testing.T) {
	res := builtin("", "persistentvolumeclaims")
	stored := func(phase string) map[string]any {
		obj := claimObject(t, claim(claimSpec))
		if errs := res.Strategy.PrepareForCreate(time.Time{}, obj); len(errs) > 0 {
			t.Fatal(errs.ToAggregate())
		}
		obj["status"] = map[string]any{"phase": phase, "capacity": map[string]any{"storage": "1Gi"}}
		return obj
	}
	tests := []struct {
		name, phase, body string
		want              string
	}{
		{"unchanged", "Pending", claim(claimSpec), ""},
		{"volume name set once", "Pending", claim(claimSpec + `,"volumeName":"pv-1"`), ""},
		{"access modes", "Bound", claim(`"accessModes":["ReadWriteMany"],"resources":{"requests":{"storage":"1Gi"}}`),
			"spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"},
		{"pending claim grows", "Pending", claim(`"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"2Gi"}}`),
			"spec: Forbidden: spec is immutable after creation"},
		{"bound claim grows", "Bound", claim(`"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"2Gi"}}`), ""},
		{"bound claim shrinks below its capacity", "Bound", claim(`"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"512Mi"}}`),
			"spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"},
		{"volume mode", "Pending", claim(claimSpec + `,"volumeMode":"Block"`), `volumeMode: Invalid value: "Block": field is immutable`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := stored(tt.phase)
			obj := claimObject(t, tt.body)
			obj["status"] = old["status"]
			got := res.Strategy.PrepareForUpdate(time.Time{}, obj, old).ToAggregate()
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("errors %v, want none", got)
			case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
				t.Errorf("errors %v, want %q", got, tt.want)
			}
		})
	}
}

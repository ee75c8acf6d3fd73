package registry

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// TestDataSize: ConfigMaps and Secrets hold at most 1 MiB of data:
// data and decoded binaryData together for a ConfigMap (an error on the
// whole object), decoded data after stringData is merged for a Secret.
func TestDataSize(t *testing.T) {
	b64 := func(n int) string { return base64.StdEncoding.EncodeToString(make([]byte, n)) }
	text := func(n int) string { return strings.Repeat("x", n) }
	const mib = 1 << 20
	tests := []struct {
		name      string
		strategy  Strategy
		obj       map[string]any
		wantField string // "" when valid
	}{
		{"ConfigMap data of 1 MiB", configMapStrategy{}, map[string]any{"data": map[string]any{"a": text(mib)}}, ""},
		{"ConfigMap data over 1 MiB", configMapStrategy{}, map[string]any{"data": map[string]any{"a": text(mib - 1), "b": "xx"}}, "[]"},
		{"ConfigMap binaryData counts decoded", configMapStrategy{}, map[string]any{"binaryData": map[string]any{"a": b64(mib)}}, ""},
		{"ConfigMap data and binaryData together", configMapStrategy{}, map[string]any{"data": map[string]any{"a": text(mib / 2)}, "binaryData": map[string]any{"b": b64(mib/2 + 1)}}, "[]"},
		{"Secret data of 1 MiB", secretStrategy{}, map[string]any{"data": map[string]any{"a": b64(mib - 2), "b": b64(2)}}, ""},
		{"Secret data over 1 MiB", secretStrategy{}, map[string]any{"data": map[string]any{"a": b64(mib - 1), "b": b64(2)}}, "data"},
		{"Secret stringData over 1 MiB", secretStrategy{}, map[string]any{"stringData": map[string]any{"a": text(mib + 1)}}, "data"},
	}
	for _, tt := range tests {
		for _, op := range []string{"create", "update"} {
			t.Run(tt.name+" on "+op, func(t *testing.T) {
				obj := deepCopyMap(tt.obj)
				var errs []string
				if op == "create" {
					for _, e := range tt.strategy.PrepareForCreate(time.Time{}, obj) {
						errs = append(errs, e.Field+": "+e.ErrorBody())
					}
				} else {
					for _, e := range tt.strategy.PrepareForUpdate(time.Time{}, obj, map[string]any{"type": "Opaque"}) {
						errs = append(errs, e.Field+": "+e.ErrorBody())
					}
				}
				var want []string
				if tt.wantField != "" {
					want = []string{tt.wantField + ": Too long: may not be more than 1048576 bytes"}
				}
				if strings.Join(errs, "\n") != strings.Join(want, "\n") {
					t.Errorf("got %q, want %q", errs, want)
				}
			})
		}
	}
}

func deepCopyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if vm, ok := v.(map[string]any); ok {
			v = deepCopyMap(vm)
		}
		out[k] = v
	}
	return out
}

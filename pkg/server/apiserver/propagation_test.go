package apiserver_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// TestDeletePropagation checks the finalizers a delete leaves for the
// garbage collector, per policy, as kube-apiserver does.
func TestDeletePropagation(t *testing.T) {
	c := newClient(t)
	tests := []struct {
		name       string
		existing   []string // finalizers before the delete
		query      string
		body       any
		wantCode   int
		wantFins   []string // nil: the object is gone
		wantExists bool
	}{
		{name: "background by default", wantCode: http.StatusOK},
		{name: "background", query: "?propagationPolicy=Background", wantCode: http.StatusOK},
		{name: "foreground", query: "?propagationPolicy=Foreground", wantCode: http.StatusOK, wantFins: []string{"foregroundDeletion"}, wantExists: true},
		{name: "orphan", query: "?propagationPolicy=Orphan", wantCode: http.StatusOK, wantFins: []string{"orphan"}, wantExists: true},
		{name: "orphan in the body", body: map[string]any{"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Orphan"}, wantCode: http.StatusOK, wantFins: []string{"orphan"}, wantExists: true},
		{name: "legacy orphanDependents", query: "?orphanDependents=true", wantCode: http.StatusOK, wantFins: []string{"orphan"}, wantExists: true},
		{name: "legacy orphanDependents false", query: "?orphanDependents=false", wantCode: http.StatusOK},
		{name: "other finalizers kept", existing: []string{"example.com/x"}, query: "?propagationPolicy=Foreground", wantCode: http.StatusOK, wantFins: []string{"example.com/x", "foregroundDeletion"}, wantExists: true},
		{name: "explicit policy replaces", existing: []string{"orphan"}, query: "?propagationPolicy=Foreground", wantCode: http.StatusOK, wantFins: []string{"foregroundDeletion"}, wantExists: true},
		{name: "background clears", existing: []string{"orphan", "example.com/x"}, query: "?propagationPolicy=Background", wantCode: http.StatusOK, wantFins: []string{"example.com/x"}, wantExists: true},
		{name: "no policy keeps", existing: []string{"orphan"}, wantCode: http.StatusOK, wantFins: []string{"orphan"}, wantExists: true},
		{name: "both set", query: "?propagationPolicy=Orphan&orphanDependents=true", wantCode: http.StatusUnprocessableEntity, wantFins: []string{}, wantExists: true},
		{name: "unknown policy", query: "?propagationPolicy=Sideways", wantCode: http.StatusBadRequest, wantFins: []string{}, wantExists: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprint("cm-", i)
			cm := configMap("default", name, nil)
			if tt.existing != nil {
				meta(cm)["finalizers"] = tt.existing
			}
			c.must(http.StatusCreated, "POST", "/api/v1/namespaces/default/configmaps", cm)
			path := "/api/v1/namespaces/default/configmaps/" + name
			if r := c.do("DELETE", path+tt.query, tt.body); r.code != tt.wantCode {
				t.Fatalf("DELETE = %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			r := c.do("GET", path, nil)
			if !tt.wantExists {
				if r.code != http.StatusNotFound {
					t.Fatalf("GET after delete = %d, want 404", r.code)
				}
				return
			}
			if r.code != http.StatusOK {
				t.Fatalf("GET after delete = %d: %s", r.code, r.body)
			}
			m := meta(r.json(t))
			var got []string
			for _, f := range asSlice(m["finalizers"]) {
				got = append(got, str(f))
			}
			want := tt.wantFins
			if tt.wantCode != http.StatusOK {
				want = tt.existing
			}
			if !slices.Equal(sortedStrings(got), sortedStrings(want)) {
				t.Errorf("finalizers = %v, want %v", got, want)
			}
			if deleting := m["deletionTimestamp"] != nil; deleting != (tt.wantCode == http.StatusOK) {
				t.Errorf("deletionTimestamp set = %v", deleting)
			}
		})
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func sortedStrings(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	if out == nil {
		return []string{}
	}
	return out
}

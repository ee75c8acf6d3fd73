package e2e_test

import (
	"strings"
	"testing"
)

// fullCascadeForeground is step 15: kubectl delete --cascade=foreground
// of an owner removes its blocking dependent too.
func fullCascadeForeground(t *testing.T, e *fullEnv) {
	e.ok(t, "create", "configmap", "owner", "--from-literal=a=1")
	uid := e.ok(t, "get", "configmap", "owner", "-o", "jsonpath={.metadata.uid}")
	if uid == "" {
		t.Fatal("owner has no uid")
	}
	e.seed(t, toYAML(map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":      "dependent",
			"namespace": e.ns,
			"ownerReferences": []any{map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid,
				"blockOwnerDeletion": true,
			}},
		},
		"data": map[string]any{"b": "2"},
	}))

	r := e.runEnv(t, nil, longTimeout, "delete", "configmap", "owner", "--cascade=foreground", "--timeout=100s")
	if r.err != nil {
		t.Fatal(r)
	}
	if want := `configmap "owner" deleted`; !strings.HasPrefix(r.stdout, want) {
		t.Errorf("kubectl delete --cascade=foreground: %q, want %q", r.stdout, want)
	}
	// kubectl delete waited for the owner to go, and the dependent went
	// before it.
	e.wantNotFound(t, "configmap", "owner")
	e.wantNotFound(t, "configmap", "dependent")
}

package e2e_test

import (
	"fmt"
	"testing"
)

// fullDiff is step 13: kubectl diff -f shows a change and exits 1, shows
// nothing and exits 0 for an unchanged manifest, and changes nothing.
func fullDiff(t *testing.T, e *fullEnv) {
	for _, tc := range []struct {
		kind               string
		manifest           func(v int) string
		ref                string
		path               string
		wantMinus, wantAdd string // lines of the diff, as regexps
	}{
		{
			kind:      "widget",
			manifest:  func(v int) string { return e.widgetYAML("diffed", map[string]any{"replicas": v, "mode": "a"}) },
			ref:       e.widget("diffed"),
			path:      "spec.replicas",
			wantMinus: `-\s+replicas: 2`, wantAdd: `\+\s+replicas: 4`,
		},
		{
			kind: "configmap",
			manifest: func(v int) string {
				return configMapYAML(e.ns, "diffed", nil, map[string]string{"size": fmt.Sprint(v)})
			},
			ref:       "configmap/diffed",
			path:      "data.size",
			wantMinus: `-\s+size: "2"`, wantAdd: `\+\s+size: "4"`,
		},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			// As kubectl apply -f would create it, without depending on
			// kubectl apply, which step 3 tests.
			e.seedApplied(t, tc.manifest(2))
			before := mustJSON(field(e.getJSON(t, tc.ref), tc.path))

			// kubectl runs its default diff -u -N (command strips any
			// KUBECTL_EXTERNAL_DIFF from the environment).
			r := e.run(t, "diff", "-f", writeFile(t, "changed.yaml", tc.manifest(4)))
			if exitCode(r) != 1 {
				t.Errorf("kubectl diff of a changed manifest: exit code %d, want 1: %v", exitCode(r), r)
			}
			wantLines(t, "kubectl diff", r.stdout, tc.wantMinus, tc.wantAdd)

			r = e.run(t, "diff", "-f", writeFile(t, "same.yaml", tc.manifest(2)))
			if exitCode(r) != 0 || r.stdout != "" {
				t.Errorf("kubectl diff of an unchanged manifest: exit code %d and output, want 0 and none: %v", exitCode(r), r)
			}

			if after := mustJSON(field(e.getJSON(t, tc.ref), tc.path)); after != before {
				t.Errorf("kubectl diff changed %s from %s to %s", tc.path, before, after)
			}
		})
	}
}

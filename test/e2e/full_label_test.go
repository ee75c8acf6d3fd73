package e2e_test

import (
	"maps"
	"strings"
	"testing"
)

// fullLabelAnnotate is step 12: kubectl label and annotate of a Widget
// add, refuse to overwrite without --overwrite, overwrite and remove.
func fullLabelAnnotate(t *testing.T, e *fullEnv) {
	e.seed(t, e.widgetYAML("tagged", map[string]any{"mode": "a"}))
	ref := e.widget("tagged")
	for _, tc := range []struct {
		args    []string
		wantOut string // stdout on success
		wantErr string // in stderr; the command must fail
		meta    string // labels or annotations
		want    map[string]string
	}{
		{args: []string{"label", "tier=web"}, wantOut: "labeled", meta: "labels", want: map[string]string{"tier": "web"}},
		{args: []string{"label", "tier=db"}, wantErr: "--overwrite is false", meta: "labels", want: map[string]string{"tier": "web"}},
		{args: []string{"label", "--overwrite", "tier=db", "team=core"}, wantOut: "labeled", meta: "labels", want: map[string]string{"tier": "db", "team": "core"}},
		{args: []string{"label", "tier-"}, wantOut: "unlabeled", meta: "labels", want: map[string]string{"team": "core"}},
		{args: []string{"annotate", "note=hello world"}, wantOut: "annotated", meta: "annotations", want: map[string]string{"note": "hello world"}},
		{args: []string{"annotate", "note=again"}, wantErr: "--overwrite is false", meta: "annotations", want: map[string]string{"note": "hello world"}},
		{args: []string{"annotate", "--overwrite", "note=again"}, wantOut: "annotated", meta: "annotations", want: map[string]string{"note": "again"}},
		{args: []string{"annotate", "note-"}, wantOut: "annotated", meta: "annotations", want: map[string]string{}},
	} {
		args := append([]string{tc.args[0], ref}, tc.args[1:]...)
		if tc.wantErr != "" {
			if stderr := e.fails(t, args...); !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("kubectl %s: stderr %q, want it to contain %q", strings.Join(args, " "), stderr, tc.wantErr)
			}
		} else if out, want := e.ok(t, args...), ref+" "+tc.wantOut+"\n"; out != want {
			t.Errorf("kubectl %s: %q, want %q", strings.Join(args, " "), out, want)
		}
		got := stringMap(field(e.getJSON(t, ref), "metadata."+tc.meta))
		delete(got, lastApplied)
		if !maps.Equal(got, tc.want) {
			t.Errorf("after kubectl %s: %s %v, want %v", strings.Join(args, " "), tc.meta, got, tc.want)
		}
	}
}

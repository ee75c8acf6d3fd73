package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fullEdit is step 7: kubectl edit, with an editor script that changes
// one value by sed, stores the change.
func fullEdit(t *testing.T, e *fullEnv) {
	for _, tc := range []struct {
		kind     string
		manifest string
		ref      string
		sed      string // the editor's sed expression
		path     string // the field changed
		want     any
	}{
		{
			kind:     "configmap",
			manifest: configMapYAML(e.ns, "edited", nil, map[string]string{"color": "blue", "size": "3"}),
			ref:      "configmap/edited",
			sed:      `s/^\( *\)color: blue$/\1color: green/`,
			path:     "data.color",
			want:     "green",
		},
		{
			kind:     "widget",
			manifest: e.widgetYAML("edited", map[string]any{"replicas": 2, "mode": "a"}),
			ref:      e.widget("edited"),
			sed:      `s/^\( *\)replicas: 2$/\1replicas: 4/`,
			path:     "spec.replicas",
			want:     float64(4),
		},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			e.seed(t, tc.manifest)
			editor := writeScript(t, "editor.sh", "exec sed -i '"+tc.sed+"' \"$1\"\n")
			// kubectl edit keeps its files, and a copy of a failed edit,
			// in TMPDIR.
			tmp := t.TempDir()
			r := e.runEnv(t, []string{"EDITOR=" + editor, "KUBE_EDITOR=" + editor, "TMPDIR=" + tmp}, 0, "edit", tc.ref)
			if r.err != nil {
				t.Fatalf("%v\nreasons in the saved copy:\n%s", r, editReasons(tmp))
			}
			if want := tc.ref + " edited\n"; r.stdout != want {
				t.Errorf("kubectl edit: %q, want %q", r.stdout, want)
			}
			if got := field(e.getJSON(t, tc.ref), tc.path); got != tc.want {
				t.Errorf("after kubectl edit %s = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// editReasons returns the reasons kubectl edit wrote at the head of the
// copies of failed edits it left in dir: why the edit failed.
func editReasons(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*edit-*"))
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(data)) {
			if !strings.HasPrefix(line, "#") {
				break
			}
			if strings.Contains(line, "was not valid") || strings.HasPrefix(line, "# * ") || strings.Contains(line, "syntax error") {
				b.WriteString(line)
			}
		}
	}
	return b.String()
}

// writeScript writes an executable shell script to a fresh file.
func writeScript(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

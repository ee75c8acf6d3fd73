package client_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// records is a slog handler that keeps warning messages.
type records struct {
	mu   sync.Mutex
	msgs []string
}

func (r *records) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "warning" {
			r.mu.Lock()
			r.msgs = append(r.msgs, a.Value.String())
			r.mu.Unlock()
		}
		return true
	})
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// TestWarnings: the server's Warning headers reach the logger, each
// distinct one once.
func TestWarnings(t *testing.T) {
	rec := &records{}
	c, _ := start(t, client.Options{Logger: slog.New(rec)})
	ctx := ctx(t)
	createNamespace(t, c, "demo")
	withUnknownField := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "bogus": "x",
			"metadata": map[string]any{"name": name, "namespace": "demo"},
		}}
		return u
	}
	steps := []struct {
		name string
		obj  *unstructured.Unstructured
		want int // distinct warnings logged so far
	}{
		{"first unknown field", withUnknownField("a"), 1},
		{"the same warning again", withUnknownField("b"), 1},
	}
	for _, st := range steps {
		if err := c.Create(ctx, st.obj); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		rec.mu.Lock()
		got := slices.Clone(rec.msgs)
		rec.mu.Unlock()
		if len(got) != st.want {
			t.Errorf("%s: logged %q, want %d warning(s)", st.name, got, st.want)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.msgs) == 0 || !contains(rec.msgs[0], "bogus") {
		t.Errorf("warning %q does not name the unknown field", rec.msgs)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

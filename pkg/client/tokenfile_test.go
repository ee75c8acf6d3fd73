package client

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTokenFileMaxAge checks the once-a-minute read that catches changes
// a stat cannot see: same inode, size and modification time.
func TestTokenFileMaxAge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte("token-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tf, err := newTokenFile(path, "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	tf.now = func() time.Time { return now }
	tf.readAt = now

	if err := os.WriteFile(path, []byte("token-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		after time.Duration
		want  string
	}{
		{0, "token-1"},
		{tokenFileMaxAge - time.Second, "token-1"},
		{tokenFileMaxAge, "token-2"},
	}
	for _, s := range steps {
		tf.now = func() time.Time { return now.Add(s.after) }
		if got := tf.current(); got != s.want {
			t.Errorf("after %v: got %q, want %q", s.after, got, s.want)
		}
	}
}

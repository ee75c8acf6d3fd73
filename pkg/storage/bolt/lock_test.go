package bolt_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

// TestOpenLocked: a second Open of a file another holder has open fails
// after the lock timeout with an error that says so and names the file,
// and succeeds once the first holder closes it.
func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	first, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, timeout := range []time.Duration{0, 100 * time.Millisecond} {
		start := time.Now()
		_, err := bolt.Open(path, bolt.Options{LockTimeout: timeout})
		took := time.Since(start)
		var locked *bolt.LockedError
		if !errors.Is(err, bolt.ErrLocked) || !errors.As(err, &locked) || locked.Path != path {
			t.Fatalf("LockTimeout %v: second Open: %v, want a *LockedError for %s matching ErrLocked", timeout, err, path)
		}
		if !strings.Contains(err.Error(), "another process holds the store") || !strings.Contains(err.Error(), path) {
			t.Errorf("message %q does not say that another process holds %s", err, path)
		}
		want := timeout
		if want == 0 {
			want = time.Second
		}
		if took < want/4 || took > want+2*time.Second { // bbolt polls the lock
			t.Errorf("LockTimeout %v: failed after %v, want about %v", timeout, took, want)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := bolt.Open(path, bolt.Options{LockTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open after the first holder closed: %v", err)
	}
	_ = second.Close()
}

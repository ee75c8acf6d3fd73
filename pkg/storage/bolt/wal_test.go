package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

// writeAbandoned writes n keys to a new store at path and abandons it
// without a clean close, and returns the last revision.
func writeAbandoned(t *testing.T, path string, n int) int64 {
	t.Helper()
	s, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rev int64
	for i := range n {
		if i == n/2 {
			copyFile(t, path, path+".old")
		}
		if rev, err = s.Create(context.Background(), fmt.Sprintf("/k/%d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	s.Abandon()
	return rev
}

func TestLogAfterUncleanStop(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(t *testing.T, path string)
		// wantRev is the revision after reopening, given the one written;
		// 0 wants Open to fail.
		wantRev func(written int64) int64
	}{
		{
			name:    "reopen replays",
			prepare: func(*testing.T, string) {},
			wantRev: func(w int64) int64 { return w },
		},
		{
			name: "database removed: a new one ignores the log",
			prepare: func(t *testing.T, path string) {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			},
			wantRev: func(int64) int64 { return 1 },
		},
		{
			name: "database replaced by an older copy: refused",
			prepare: func(t *testing.T, path string) {
				if err := os.Rename(path+".old", path); err != nil {
					t.Fatal(err)
				}
			},
			wantRev: func(int64) int64 { return 0 },
		},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			written := writeAbandoned(t, path, 50)
			tt.prepare(t, path)
			s, err := bolt.Open(path, bolt.Options{})
			want := tt.wantRev(written)
			if want == 0 {
				if err == nil {
					s.Close()
					t.Fatal("Open succeeded, want an error")
				}
				t.Logf("Open: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, _ := s.Revision(context.Background())
			if got != want {
				t.Fatalf("revision %d, want %d", got, want)
			}
			if err := s.Check(); err != nil {
				t.Fatal(err)
			}
			if want > 1 {
				if _, err := s.Get(context.Background(), "/k/49"); err != nil {
					t.Fatalf("last write: %v", err)
				}
			} else if _, err := s.Get(context.Background(), "/k/49"); !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("last write in a new database: %v, want not found", err)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

package bolt_test

import (
	"path/filepath"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
	"github.com/setpoint-dev/setpoint/pkg/storage/storagetest"
)

func open(t testing.TB, dir string) storage.Interface {
	t.Helper()
	s, err := bolt.Open(filepath.Join(dir, "db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(tb testing.TB) storage.Interface { return open(tb, tb.TempDir()) })
}

func TestDurable(t *testing.T) {
	storagetest.RunDurable(t, func(t *testing.T, dir string) storage.Interface { return open(t, dir) })
}

// BenchmarkStorage measures the durable default (fsync on every commit).
func BenchmarkStorage(b *testing.B) {
	storagetest.Bench(b, func(tb testing.TB) storage.Interface { return open(tb, tb.TempDir()) })
}

func TestQuota(t *testing.T) {
	storagetest.RunQuota(t, func(tb testing.TB, quota int64) storage.Interface {
		s, err := bolt.Open(filepath.Join(tb.TempDir(), "db"), bolt.Options{QuotaBytes: quota})
		if err != nil {
			tb.Fatal(err)
		}
		return s
	})
}

package memory_test

import (
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
	"github.com/setpoint-dev/setpoint/pkg/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(testing.TB) storage.Interface { return memory.New() })
}

func TestQuota(t *testing.T) {
	storagetest.RunQuota(t, func(_ testing.TB, quota int64) storage.Interface { return memory.NewWithQuota(quota) })
}

func BenchmarkStorage(b *testing.B) {
	storagetest.Bench(b, func(testing.TB) storage.Interface { return memory.New() })
}

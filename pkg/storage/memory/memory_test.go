package memory_test

import (
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
	"github.com/setpoint-dev/setpoint/pkg/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Interface { return memory.New() })
}

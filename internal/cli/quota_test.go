package cli

import (
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

func TestEffectiveQuota(t *testing.T) {
	tests := []struct {
		flag, want int64
	}{
		{0, storage.DefaultQuota},
		{storage.DefaultQuota, storage.DefaultQuota},
		{8 << 30, 8 << 30},
		{1 << 20, 1 << 20},
		{-1, 0},
	}
	for _, tt := range tests {
		if got := effectiveQuota(tt.flag); got != tt.want {
			t.Errorf("effectiveQuota(%d) = %d, want %d", tt.flag, got, tt.want)
		}
	}
}

package cli

import (
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
)

// The flags' 0 (no limit, as in kube) becomes Config's negative.
func TestInflightLimitsApply(t *testing.T) {
	tests := []struct {
		flags                     inflightLimits
		wantRead, wantMut, wantWa int
	}{
		{inflightLimits{400, 200, 1000}, 400, 200, 1000},
		{inflightLimits{0, 0, 0}, -1, -1, -1},
		{inflightLimits{1, 0, 7}, 1, -1, 7},
	}
	for _, tt := range tests {
		var cfg apiserver.Config
		tt.flags.apply(&cfg)
		if cfg.MaxRequestsInflight != tt.wantRead || cfg.MaxMutatingRequestsInflight != tt.wantMut || cfg.MaxWatches != tt.wantWa {
			t.Errorf("%+v: got %d, %d, %d; want %d, %d, %d", tt.flags, cfg.MaxRequestsInflight, cfg.MaxMutatingRequestsInflight, cfg.MaxWatches, tt.wantRead, tt.wantMut, tt.wantWa)
		}
	}
}

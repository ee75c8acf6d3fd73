package cli

import (
	"fmt"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
)

// inflightLimits are the server's in-flight limit flags. As with
// kube-apiserver's flags, 0 means no limit.
type inflightLimits struct {
	readOnly, mutating, watches int
}

func (l inflightLimits) check() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"--max-requests-inflight", l.readOnly}, {"--max-mutating-requests-inflight", l.mutating}, {"--max-watches", l.watches}} {
		if f.v < 0 {
			return fmt.Errorf("%s must not be negative, got %d", f.name, f.v)
		}
	}
	return nil
}

// apply sets cfg's limits; Config spells "no limit" as a negative value
// because its 0 means the default.
func (l inflightLimits) apply(cfg *apiserver.Config) {
	flag := func(v int) int {
		if v == 0 {
			return -1
		}
		return v
	}
	cfg.MaxRequestsInflight = flag(l.readOnly)
	cfg.MaxMutatingRequestsInflight = flag(l.mutating)
	cfg.MaxWatches = flag(l.watches)
}

//go:build !linux

package bench

import "time"

// childCPU is not measured off Linux; server CPU metrics read 0 there.
func childCPU(int) time.Duration { return 0 }

//go:build !linux

package bench

import (
	"syscall"
	"testing"
	"time"
)

func dieWithParent() *syscall.SysProcAttr { return nil }

// processCPU is not measured off Linux; CPU metrics read 0 there.
func processCPU(*testing.B) time.Duration { return 0 }

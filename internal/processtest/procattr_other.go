//go:build !linux

package processtest

import "syscall"

// childProcAttr has nothing to add where there is no parent-death signal.
func childProcAttr() *syscall.SysProcAttr { return nil }

//go:build !linux

package namespace

import "syscall"

// childProcAttr has nothing to add where there is no parent-death signal.
func childProcAttr() *syscall.SysProcAttr { return nil }

//go:build !linux

package e2e_test

import "syscall"

// childProcAttr has nothing to add where there is no parent-death signal.
func childProcAttr() *syscall.SysProcAttr { return nil }

//go:build !linux

package main

import "syscall"

// childProcAttr has nothing to add where there is no parent-death signal.
func childProcAttr() *syscall.SysProcAttr { return nil }

package processtest

import "syscall"

// childProcAttr kills a child when the test binary dies, so a panicking
// or timed-out test leaves no process behind.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

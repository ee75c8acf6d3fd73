package bench

import "syscall"

// dieWithParent makes a child process end with the test binary.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

package bolt

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data, and its size when that changed, without the
// metadata a read does not need.
func fdatasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}

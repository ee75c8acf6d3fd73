//go:build unix

package bolt

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errWouldBlock means another process holds the lock.
var errWouldBlock = errors.New("locked")

// lockFile takes an exclusive advisory lock on f, waiting up to timeout.
func lockFile(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			return err
		}
		if time.Now().After(deadline) {
			return errWouldBlock
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fileID names the file f is, whatever path it was opened by.
func fileID(f *os.File) (uint64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, nil
	}
	return uint64(st.Dev)<<40 ^ uint64(st.Ino), nil
}

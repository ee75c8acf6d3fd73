//go:build !unix

package bolt

import (
	"os"
	"time"
)

var errWouldBlock error

// lockFile relies on bbolt's own lock where flock does not exist.
func lockFile(*os.File, time.Duration) error { return nil }

// fileID is unknown where stat has no inode; 0 matches any file.
func fileID(*os.File) (uint64, error) { return 0, nil }

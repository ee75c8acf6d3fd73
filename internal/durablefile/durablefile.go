// Package durablefile makes file system changes survive a power failure:
// what the store's snapshots, the server's credentials and its
// ServiceAccount signing key need before they report a file written.
package durablefile

import "os"

// SyncDir flushes dir's entries, so a file created, renamed or linked
// into it is still there after a crash; syncing the file alone does not
// persist its name.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		_ = d.Close()
		return err
	}
	return d.Close()
}

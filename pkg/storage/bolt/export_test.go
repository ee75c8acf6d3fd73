package bolt

import bbolt "go.etcd.io/bbolt"

// SetAfterCheckpointSync has f run in every checkpoint once the file is
// synced, while no commit can run; the power loss test copies the file
// there.
func SetAfterCheckpointSync(f func()) { afterCheckpointSync = f }

// Check walks the file's pages and reports the first inconsistency.
func (s *Store) Check() error {
	return s.db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
}

// Abandon stops s as a crash would: the log keeps what it holds and the
// file is not synced. s must not be used afterwards.
func (s *Store) Abandon() {
	s.closed.Store(true)
	close(s.closing)
	<-s.writerDone
	<-s.flusherDone
	s.feed.Close()
	s.closeFiles()
}

// SetMapSize has Open map files with n bytes, 0 for the default.
func SetMapSize(n int64) { mapSizeOverride = n }

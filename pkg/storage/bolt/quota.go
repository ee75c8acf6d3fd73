package bolt

import (
	bbolt "go.etcd.io/bbolt"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Usage implements storage.UsageReporter. The logical size is the file's
// allocated pages less the free ones: compaction frees the pages of the
// history it drops, bbolt reuses them for later writes, and so deletes
// plus compaction bring a store back under its quota without shrinking
// the file (etcd counts the file's size and needs a defragmentation).
func (s *Store) Usage() (storage.Usage, error) {
	var used int64
	err := s.view(func(tx *bbolt.Tx) error {
		used = s.usage(tx)
		return nil
	})
	return storage.Usage{Bytes: used, Quota: s.quota}, err
}

// usage is the logical size as tx sees it. bbolt counts free pages when a
// write transaction ends, so inside a write transaction this is the size
// the previous one left. Pages freed but still held by an open reader
// (pending) count as free: they are reused once the reader ends.
func (s *Store) usage(tx *bbolt.Tx) int64 {
	st := s.db.Stats()
	return tx.Size() - int64(st.FreePageN+st.PendingPageN)*int64(s.db.Info().PageSize)
}

// writeCost estimates how much a create or update of value under key adds
// to the logical size: its record's chunks in the rev bucket, each with
// bbolt's entry header and the chunk key, and its entries in the key and
// hist buckets. Only the quota check uses it, to count the writes
// admitted earlier in the same transaction.
func (s *Store) writeCost(key string, value []byte) int64 {
	rec := int64(1 + 2*4 + len(key) + len(value))
	chunks := rec/int64(s.chunkSize) + 1
	return rec + chunks*(entryHeader+chunkKeyLen) + 2*(entryHeader+int64(len(key))+9+8)
}

package bolt

import (
	"context"

	bbolt "go.etcd.io/bbolt"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// compactChunk bounds the records one compaction transaction examines, so
// writers wait at most one short transaction behind a compaction.
const compactChunk = 2048

// Compact implements storage.Interface. The new compacted revision is
// committed first, so every reader that starts afterwards refuses older
// revisions; then the superseded records are deleted in short
// transactions. Readers that started before still see their snapshot.
// Freed pages are reused by later writes, which keeps the file near the
// size of the retained data without a stop-the-world defragmentation.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	// bbolt must hold the revision before it can be compacted.
	if err := s.awaitCommitted(min(revision, s.rev.Load())); err != nil {
		return err
	}
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	err := s.db.Update(func(tx *bbolt.Tx) error {
		current, compacted := revisions(tx)
		if revision > current {
			return storage.ErrFutureRevision
		}
		if revision <= compacted {
			return nil
		}
		return tx.Bucket(bucketMeta).Put(metaCompacted, revBytes(revision))
	})
	if err != nil {
		return err
	}
	err = s.finishCompaction()
	// The pages compaction freed are reusable once the checkpoint's pin
	// moves past them: have the next checkpoint come at once.
	select {
	case s.flushNow <- struct{}{}:
	default:
	}
	return err
}

// finishCompaction deletes what the recorded compaction made obsolete,
// from where the last run stopped. For every record at or below the
// compacted revision, the record it replaced is obsolete, and so is the
// record itself if it is a delete.
func (s *Store) finishCompaction() error {
	for {
		if s.closed.Load() {
			return storage.ErrClosed
		}
		var finished bool
		err := s.db.Update(func(tx *bbolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			target, done := bytesRev(meta.Get(metaCompacted)), bytesRev(meta.Get(metaCompactDone))
			if done >= target {
				finished = true
				return nil
			}
			b := bucketsOf(tx)
			type obsolete struct {
				key string
				rev int64
			}
			var drop []obsolete
			it := seekRecords(b.rev, done+1)
			last, examined := done, 0
			for rev, v, ok := it.next(); ok && examined < compactChunk; rev, v, ok = it.next() {
				if rev > target {
					break
				}
				last, examined = rev, examined+1
				rec, err := decodeRecord(v)
				if err != nil {
					return err
				}
				if rec.prevRev != 0 {
					drop = append(drop, obsolete{rec.key, rec.prevRev})
				}
				if rec.typ == storage.Deleted {
					drop = append(drop, obsolete{rec.key, rev})
				}
			}
			if examined < compactChunk {
				last = target // the cursor reached the target
			}
			for _, o := range drop {
				if err := deleteRecord(b.rev, o.rev); err != nil {
					return err
				}
				if err := b.hist.Delete(versionKey(o.key, o.rev)); err != nil {
					return err
				}
			}
			return meta.Put(metaCompactDone, revBytes(last))
		})
		if err != nil || finished {
			return err
		}
	}
}

package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// Between checkpoints the store runs "pinned": bbolt commits without
// syncing, each batch is first made durable in the write-ahead log, and a
// read transaction opened at the checkpoint stays open. bbolt never reuses
// a page a reader can still see, so the checkpoint's pages stay on disk as
// they were synced, whatever the unsynced commits since have written. A
// crash can tear those commits, but the log header holds a copy of the
// checkpoint's meta pages: putting them back returns the file to the
// checkpoint, and replaying the log returns it to the last commit.
//
// bbolt remaps its file when the file outgrows the map, and a remap waits
// for every reader, the pin too. The map is made large enough at open
// that this does not happen; a store that nears it anyway leaves pinned
// mode for good and syncs every bbolt commit, as without a log.
const (
	// checkpointEvery bounds how much of the log a restart replays.
	checkpointEvery = time.Second
	// checkpointBytes starts a checkpoint early when the log grows past it.
	checkpointBytes = 64 << 20
	// checkpointCommits starts a checkpoint early after that many
	// commits. Until the pin moves, the pages each commit frees stay
	// pending in bbolt's freelist, one entry per transaction, and bbolt
	// walks every entry several times in each commit: with only the
	// timer, one writer at 3,000 commits/s spent a fifth of its CPU
	// there (BenchmarkStorage/Create/writers=1: 2,970 creates/s, 4,050
	// with this bound).
	checkpointCommits = 256
	// mapMargin is the headroom kept between the file and its map.
	mapMargin = 256 << 20
	// minMapSize is the smallest map asked for at open.
	minMapSize = 1 << 30
	// growStep is how much the file grows by when it must.
	growStep = 4 << 20
)

// mapSizeFor is the map to open a file with: room for the quota, or for
// the file to double, whichever is more.
func mapSizeFor(path string, quota int64) int64 {
	if mapSizeOverride > 0 {
		return mapSizeOverride
	}
	size := max(int64(minMapSize), 2*quota)
	if quota <= 0 {
		size = 8 << 30
	}
	if fi, err := os.Stat(path); err == nil {
		size = max(size, 2*fi.Size()+mapMargin)
	}
	return size
}

// walSuffix names a database's log: the database's path and this.
const walSuffix = ".wal"

// openLog opens and locks the log of the database at dbPath and reads its
// checkpoint.
func openLog(dbPath string, timeout time.Duration) (*wal, walHeader, bool, error) {
	path := dbPath + walSuffix
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, walHeader{}, false, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	if err := lockFile(f, timeout); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			return nil, walHeader{}, false, &LockedError{Path: dbPath}
		}
		return nil, walHeader{}, false, fmt.Errorf("bolt: lock %s: %w", path, err)
	}
	h, found, err := readHeader(f)
	if err != nil {
		f.Close()
		return nil, walHeader{}, false, fmt.Errorf("bolt: read %s: %w", path, err)
	}
	w := &wal{f: f, pageSize: h.pageSize, epoch: h.epoch}
	return w, h, found, nil
}

// restoreMetas writes the checkpoint's meta pages back into the bbolt
// file at path, before bbolt opens it.
func restoreMetas(path string, h walHeader) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("bolt: restore %s: %w", path, err)
	}
	defer f.Close()
	if id, err := fileID(f); err != nil || id != h.dbID {
		return fmt.Errorf("bolt: restore %s: %w: the write-ahead log %s.wal was written for another database file; move it away to open this file as it is", path, errWALCorrupt, path)
	}
	cur := make([]byte, len(h.metas))
	if _, err := f.ReadAt(cur, 0); err != nil {
		return fmt.Errorf("bolt: restore %s: %w", path, err)
	}
	if bytes.Equal(cur, h.metas) {
		return nil
	}
	// Every commit since the checkpoint raised the transaction ID; a file
	// behind it is an older copy, which the log's pages do not fit.
	if metaTxid(cur, h.pageSize) < metaTxid(h.metas, h.pageSize) {
		return fmt.Errorf("bolt: restore %s: %w: the file is older than the checkpoint in %s.wal; move the log away to open this file as it is", path, errWALCorrupt, path)
	}
	if _, err := f.WriteAt(h.metas, 0); err != nil {
		return fmt.Errorf("bolt: restore %s: %w", path, err)
	}
	return fdatasync(f)
}

// metaTxid is the higher transaction ID of the two bbolt meta pages in b.
// In bbolt's file format a meta page holds, after its 16-byte page header,
// magic, version, page size and flags (4 bytes each), the root bucket (16),
// the freelist and high water mark page IDs (8 each), then the ID.
func metaTxid(b []byte, pageSize int) uint64 {
	const off = 16 + 4*4 + 16 + 8 + 8
	var id uint64
	for i := range 2 {
		if p := i*pageSize + off; p+8 <= len(b) {
			id = max(id, binary.LittleEndian.Uint64(b[p:]))
		}
	}
	return id
}

// replay applies the log's records past the restored checkpoint, pinned
// to it, so that a crash during replay leaves the same start for the next.
func (s *Store) replay(h walHeader) error {
	pin, err := s.db.Begin(false)
	if err != nil {
		return err
	}
	s.pin = pin
	s.db.NoSync = true
	var rev int64
	if err := s.db.View(func(tx *bbolt.Tx) error { rev, _ = revisions(tx); return nil }); err != nil {
		return err
	}
	if rev != h.rev {
		return fmt.Errorf("%w: the database is at revision %d, its checkpoint at %d", errWALCorrupt, rev, h.rev)
	}
	batches, err := s.log.records()
	if err != nil {
		return err
	}
	for _, b := range batches {
		if b.first != rev+1 {
			return fmt.Errorf("%w: record at revision %d after %d", errWALCorrupt, b.first, rev)
		}
		err := s.db.Update(func(tx *bbolt.Tx) error {
			w := writeTx{tx: tx, b: bucketsOf(tx), chunkSize: s.chunkSize}
			for _, ev := range b.events {
				r := &request{typ: ev.Type, key: ev.Key, value: ev.Value}
				if _, err := w.apply(r, rev+1); err != nil {
					return fmt.Errorf("%w: replaying %s at revision %d: %w", errWALCorrupt, ev.Key, rev+1, err)
				}
				rev++
			}
			return tx.Bucket(bucketMeta).Put(metaRevision, revBytes(rev))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// checkpoint makes everything committed so far durable in the bbolt file
// and records it in the log, which then starts empty. It holds bbolt's
// write lock throughout, so no compaction commits between the sync and
// the pin.
func (s *Store) checkpoint() error {
	tx, err := s.db.Begin(true)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("bolt: checkpoint sync: %w", err)
	}
	metas := make([]byte, 2*s.log.pageSize)
	if _, err := s.dbFile.ReadAt(metas, 0); err != nil {
		return fmt.Errorf("bolt: checkpoint: %w", err)
	}
	if afterCheckpointSync != nil {
		afterCheckpointSync()
	}
	pin, err := s.db.Begin(false)
	if err != nil {
		return err
	}
	rev, _ := revisions(tx)
	h := walHeader{rev: rev, restore: true, metas: metas, dbID: s.dbID}
	if err := s.log.writeHeader(h); err != nil {
		pin.Rollback()
		return err
	}
	if s.pin != nil {
		s.pin.Rollback()
	}
	s.pin = pin
	s.db.NoSync = true
	return nil
}

// mapSizeOverride, when set by a test, is the map every Open asks for.
var mapSizeOverride int64

// afterCheckpointSync, when set by a test, runs in every checkpoint once
// the file is synced, before the log records it, while no commit can run.
var afterCheckpointSync func()

// unpin leaves pinned mode: the bbolt file is synced and the log told it
// is authoritative, so from then on every bbolt commit must sync. tx is
// the caller's write transaction, which holds off other commits.
func (s *Store) unpin(tx *bbolt.Tx) error {
	if s.pin == nil {
		return nil
	}
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("bolt: sync: %w", err)
	}
	rev, _ := revisions(tx)
	if err := s.log.writeHeader(walHeader{rev: rev, dbID: s.dbID}); err != nil {
		return err
	}
	s.pin.Rollback()
	s.pin = nil
	s.db.NoSync = false
	return nil
}

// nearMapEnd reports whether a batch of about n bytes could make bbolt
// grow its file past the map.
func (s *Store) nearMapEnd(tx *bbolt.Tx, n int) bool {
	return tx.Size()+3*int64(n)+mapMargin > s.mapSize
}

// flushLoop syncs the bbolt file ahead of each checkpoint, off the
// writer, so that the writer's own sync at the checkpoint finds little
// left to write. It asks the writer for the checkpoint through flushed.
func (s *Store) flushLoop() {
	defer close(s.flusherDone)
	for {
		select {
		case <-s.flushReq:
		case <-s.closing:
			return
		}
		t := time.NewTimer(checkpointEvery)
		select {
		case <-t.C:
		case <-s.flushNow:
			t.Stop()
		case <-s.closing:
			t.Stop()
			return
		}
		// An error shows again at the checkpoint's own sync, which
		// reports it.
		_ = s.db.Sync()
		select {
		case s.flushed <- struct{}{}:
		case <-s.closing:
			return
		}
	}
}

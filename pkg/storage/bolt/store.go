// Package bolt is the embedded, durable storage backend and Setpoint's
// default: a single bbolt file under the server's data directory.
//
// Writes are durable when they return. Concurrent writers are grouped by
// one writer goroutine into a single transaction, so throughput grows with
// concurrency while each caller still waits for its own data to reach the
// disk. A batch is made durable by one fdatasync of a write-ahead log
// beside the file (<path>.wal); the bbolt file itself is synced at
// checkpoints, once a second. Reads are bbolt snapshots and never block
// writes.
package bolt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Options tune a Store. The zero value is the durable default.
type Options struct {
	// NoSync skips fsync on commit. Writes then survive a process crash
	// but not a machine crash. For tests and throwaway data only.
	NoSync bool
	// MaxBatch caps how many writes share one transaction (default 1024).
	MaxBatch int
	// QuotaBytes is the logical size past which creates and updates are
	// refused with a *storage.QuotaError; 0 means storage.DefaultQuota
	// (2 GiB, as etcd) and a negative value means no quota.
	QuotaBytes int64
	// LockTimeout is how long Open waits for another process to release
	// the file (default one second); then it fails with ErrLocked.
	LockTimeout time.Duration
}

// ErrLocked means another process has the store open: bbolt allows one
// process per file.
var ErrLocked = errors.New("store is in use by another process")

// LockedError is Open's error when another process holds the file; it
// matches ErrLocked.
type LockedError struct {
	Path string
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("bolt: open %s: another process holds the store", e.Path)
}

func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Store is a storage.Interface on a bbolt file.
type Store struct {
	db        *bbolt.DB
	feed      *storage.Feed
	maxBatch  int
	chunkSize int

	reqs       chan *request
	closing    chan struct{}
	writerDone chan struct{}
	closeOnce  sync.Once
	closed     atomic.Bool
	// rev is the last committed and published revision.
	rev atomic.Int64

	compactMu sync.Mutex
	// quota is the limit on usage(); 0 means none.
	quota int64

	// The write-ahead log and its checkpoints (checkpoint.go); log is
	// nil with Options.NoSync. After Open only the writer goroutine
	// touches these, flushLoop aside.
	log          *wal
	dbFile       *os.File // read at checkpoints for the meta pages
	dbID         uint64
	pin          *bbolt.Tx // nil outside pinned mode
	mapSize      int64
	broken       error // a log or sync failure: no write is safe after it
	flushPending bool
	// sinceCheckpoint counts the commits since the last checkpoint.
	sinceCheckpoint int
	flushReq        chan struct{}
	flushNow        chan struct{}
	flushed         chan struct{}
	flusherDone     chan struct{}

	// The open write transaction of pinned mode (deferred.go): batches
	// are applied to it and made durable by the log, and it is
	// committed to bbolt later, for many batches at once. Only the
	// writer touches these.
	open        *bbolt.Tx
	openCost    int64 // what the batches in open add to the usage
	openBatches int
	openTimer   *time.Timer
	// committed is the last revision bbolt has committed; readers wait
	// for it to reach what they must see. lost, once set, fails every
	// read: bbolt lacks acknowledged writes that only the log holds.
	committed atomic.Int64
	lost      atomic.Pointer[error]
	commitMu  sync.Mutex
	commitCh  chan struct{} // closed at the next commit
	commitReq chan struct{} // a reader asks for a commit now
}

var _ storage.Interface = (*Store)(nil)

// Open opens or creates the store at path. Only one process may have a
// path open at a time; a second Open waits up to Options.LockTimeout, then
// fails with a *LockedError.
func Open(path string, opts Options) (_ *Store, err error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = time.Second
	}
	s := &Store{
		maxBatch:    opts.MaxBatch,
		reqs:        make(chan *request),
		closing:     make(chan struct{}),
		writerDone:  make(chan struct{}),
		flushReq:    make(chan struct{}, 1),
		flushNow:    make(chan struct{}, 1),
		flushed:     make(chan struct{}),
		flusherDone: make(chan struct{}),
		commitCh:    make(chan struct{}),
		commitReq:   make(chan struct{}, 1),
	}
	if s.maxBatch <= 0 {
		s.maxBatch = 1024
	}
	switch {
	case opts.QuotaBytes == 0:
		s.quota = storage.DefaultQuota
	case opts.QuotaBytes > 0:
		s.quota = opts.QuotaBytes
	}
	defer func() {
		if err != nil {
			s.closeFiles()
		}
	}()
	var h walHeader
	var restore bool
	if !opts.NoSync {
		// The log is locked before bbolt opens the file, because a
		// restore writes into the file first.
		if s.log, h, restore, err = openLog(path, opts.LockTimeout); err != nil {
			return nil, err
		}
		if _, statErr := os.Stat(path); errors.Is(statErr, os.ErrNotExist) {
			// A new database: whatever the log holds was another's.
			restore = false
		}
		if restore = restore && h.restore; restore {
			if err := restoreMetas(path, h); err != nil {
				return nil, err
			}
		}
	}
	s.mapSize = mapSizeFor(path, s.quota)
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout:         opts.LockTimeout,
		NoSync:          opts.NoSync,
		NoFreelistSync:  true, // rebuilt at open; saves a write per commit
		FreelistType:    bbolt.FreelistMapType,
		InitialMmapSize: int(s.mapSize),
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, &LockedError{Path: path}
	}
	if err != nil {
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	// The map is far larger than the file (see checkpoint.go), and bbolt
	// grows a file whose map is past its AllocSize by that much at a time.
	db.AllocSize = growStep
	s.db = db
	s.chunkSize = chunkSizeFor(db.Info().PageSize)
	if s.log != nil {
		if err := s.openLogged(path, h, restore); err != nil {
			return nil, err
		}
	}
	rev, err := s.initialise()
	if err != nil {
		return nil, fmt.Errorf("bolt: initialise %s: %w", path, err)
	}
	s.rev.Store(rev)
	s.committed.Store(rev)
	if s.log != nil {
		if err := s.checkpoint(); err != nil {
			return nil, err
		}
	}
	s.feed = storage.NewFeed(rev, s.history)
	// A compaction cut short by a crash resumes before anything else runs.
	if err := s.finishCompaction(); err != nil {
		s.feed.Close()
		return nil, fmt.Errorf("bolt: resume compaction: %w", err)
	}
	go s.writeLoop()
	if s.log != nil {
		go s.flushLoop()
	} else {
		close(s.flusherDone)
	}
	return s, nil
}

// openLogged ties the log to the open bbolt file and replays it when the
// last run did not end cleanly.
func (s *Store) openLogged(path string, h walHeader, restore bool) error {
	ps := s.db.Info().PageSize
	if s.log.pageSize == 0 {
		s.log.pageSize = ps
	} else if s.log.pageSize != ps {
		return fmt.Errorf("bolt: %s: %w: page size %d, the database's %d", path, errWALCorrupt, s.log.pageSize, ps)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("bolt: open %s: %w", path, err)
	}
	s.dbFile = f
	if s.dbID, err = fileID(f); err != nil {
		return fmt.Errorf("bolt: open %s: %w", path, err)
	}
	if restore {
		if err := s.replay(h); err != nil {
			return fmt.Errorf("bolt: replay %s.wal: %w", path, err)
		}
	}
	return nil
}

// initialise creates the buckets of a new file and returns the revision.
func (s *Store) initialise() (int64, error) {
	var rev int64
	err := s.db.Update(func(tx *bbolt.Tx) error {
		for _, name := range [][]byte{bucketMeta, bucketRev, bucketKey, bucketHist} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		if rev = bytesRev(meta.Get(metaRevision)); rev == 0 {
			// A new store starts at revision 1, as etcd does, so that no
			// object ever carries resourceVersion "0", which means "any"
			// to Kubernetes clients.
			rev = 1
			for _, k := range [][]byte{metaRevision, metaCompacted, metaCompactDone} {
				if err := meta.Put(k, revBytes(1)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return rev, err
}

// closeFiles releases the pin, bbolt and the log, in that order: bbolt
// cannot close while the pin reads, and the log's lock guards the file
// until bbolt lets go of it.
func (s *Store) closeFiles() error {
	if s.pin != nil {
		s.pin.Rollback()
		s.pin = nil
	}
	var err error
	if s.db != nil {
		err = s.db.Close()
	}
	if s.dbFile != nil {
		s.dbFile.Close()
	}
	if s.log != nil {
		s.log.f.Close()
	}
	return err
}

// Close implements storage.Interface: pending writes are answered, watches
// end, and the file is closed.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		close(s.closing)
		<-s.writerDone
		<-s.flusherDone
		s.feed.Close()
		s.compactMu.Lock()
		defer s.compactMu.Unlock()
		if s.pin != nil && s.broken == nil {
			// A clean end: the file is synced and needs no replay.
			var tx *bbolt.Tx
			if tx, err = s.db.Begin(true); err == nil {
				err = s.unpin(tx)
				tx.Rollback()
			}
		}
		err = errors.Join(err, s.closeFiles())
	})
	return err
}

// view runs fn in a read transaction, mapping a closed database to
// ErrClosed.
func (s *Store) view(fn func(tx *bbolt.Tx) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := s.awaitCommitted(s.rev.Load()); err != nil {
		return err
	}
	err := s.db.View(fn)
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return storage.ErrClosed
	}
	return err
}

// Get implements storage.Interface.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	if err := storage.ValidateKey(key); err != nil {
		return storage.KeyValue{}, err
	}
	var kv storage.KeyValue
	err := s.view(func(tx *bbolt.Tx) error {
		rev := bytesRev(tx.Bucket(bucketKey).Get([]byte(key)))
		if rev == 0 {
			return storage.ErrNotFound
		}
		rec, err := readRecord(tx, rev)
		if err != nil {
			return err
		}
		kv = storage.KeyValue{Key: key, Value: rec.value, Revision: rev}
		return nil
	})
	return kv, err
}

// readRecord loads the record written at rev.
func readRecord(tx *bbolt.Tx, rev int64) (record, error) {
	got, b, ok := seekRecords(tx.Bucket(bucketRev), rev).next()
	if !ok || got != rev {
		return record{}, fmt.Errorf("bolt: record %d missing: %w", rev, errBadRecord)
	}
	return decodeRecord(b)
}

// revisions reads the current and compacted revisions inside tx, so that a
// check against them holds for everything else tx reads.
func revisions(tx *bbolt.Tx) (current, compacted int64) {
	meta := tx.Bucket(bucketMeta)
	return bytesRev(meta.Get(metaRevision)), bytesRev(meta.Get(metaCompacted))
}

func checkRevision(rev, current, compacted int64) error {
	if rev < compacted {
		return &storage.CompactedError{Requested: rev, Oldest: compacted}
	}
	if rev > current {
		return storage.ErrFutureRevision
	}
	return nil
}

// Revision implements storage.Interface.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	if s.closed.Load() {
		return 0, storage.ErrClosed
	}
	return s.rev.Load(), nil
}

// Watch implements storage.Interface.
func (s *Store) Watch(ctx context.Context, prefix string, afterRevision int64) (<-chan storage.Event, error) {
	if err := storage.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	if afterRevision == 0 {
		afterRevision = s.feed.Revision()
	}
	err := s.view(func(tx *bbolt.Tx) error {
		_, compacted := revisions(tx)
		if afterRevision < compacted {
			return &storage.CompactedError{Requested: afterRevision, Oldest: compacted}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.feed.Watch(ctx, prefix, afterRevision), nil
}

// history serves the feed's catch-up reads from the rev bucket.
func (s *Store) history(prefix string, after, upTo int64, limit int) ([]storage.Event, int64, error) {
	var events []storage.Event
	scanned := upTo
	// s.rev moves before the feed publishes, so view's wait covers upTo.
	err := s.view(func(tx *bbolt.Tx) error {
		if _, compacted := revisions(tx); after < compacted {
			return &storage.CompactedError{Requested: after, Oldest: compacted}
		}
		it := seekRecords(tx.Bucket(bucketRev), after+1)
		for rev, v, ok := it.next(); ok; rev, v, ok = it.next() {
			if rev > upTo {
				break
			}
			if len(events) == limit {
				scanned = rev - 1
				break
			}
			if !hasPrefixBytes(v, prefix) {
				continue
			}
			rec, err := decodeRecord(v)
			if err != nil {
				return err
			}
			ev := storage.Event{Type: rec.typ, Key: rec.key, Value: rec.value, Revision: rev}
			if rec.prevRev != 0 {
				prev, err := readRecord(tx, rec.prevRev)
				if err != nil {
					return err
				}
				ev.PrevValue = prev.value
				if rec.typ == storage.Deleted {
					ev.Value = prev.value
				}
			}
			events = append(events, ev)
		}
		return nil
	})
	return events, scanned, err
}

// hasPrefixBytes reports whether the record in b has a key under prefix,
// without decoding or copying its value.
func hasPrefixBytes(b []byte, prefix string) bool {
	if prefix == "" {
		return true
	}
	r, err := decodeKeyOnly(b)
	return err == nil && len(r) >= len(prefix) && string(r[:len(prefix)]) == prefix
}

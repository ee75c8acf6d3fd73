package bolt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/setpoint-dev/setpoint/pkg/storage"

	"github.com/setpoint-dev/setpoint/internal/durablefile"
)

// Snapshot is a consistent copy of the store at one revision, held open
// while it is written out. Writes go on meanwhile: bbolt keeps the pages
// the snapshot reads until Close. Close it soon; until then the store
// cannot reuse the pages later writes free, and the file grows.
type Snapshot struct {
	tx  *bbolt.Tx
	rev int64
}

// Snapshot opens a snapshot of the store as it stands now.
func (s *Store) Snapshot() (*Snapshot, error) {
	if s.closed.Load() {
		return nil, storage.ErrClosed
	}
	if err := s.awaitCommitted(s.rev.Load()); err != nil {
		return nil, err
	}
	tx, err := s.db.Begin(false)
	if err != nil {
		return nil, fmt.Errorf("bolt: snapshot: %w", err)
	}
	rev, _ := revisions(tx)
	return &Snapshot{tx: tx, rev: rev}, nil
}

// Revision is the store's revision in the snapshot.
func (sn *Snapshot) Revision() int64 { return sn.rev }

// Size is the number of bytes WriteTo writes.
func (sn *Snapshot) Size() int64 { return sn.tx.Size() }

// WriteTo writes the snapshot as a bbolt database file, which Restore
// turns back into a store.
func (sn *Snapshot) WriteTo(w io.Writer) (int64, error) { return sn.tx.WriteTo(w) }

// Close releases the snapshot.
func (sn *Snapshot) Close() error { return sn.tx.Rollback() }

// ErrNotSnapshot means a file is not a database the store wrote.
var ErrNotSnapshot = errors.New("not a Setpoint bolt snapshot")

// Verify checks that the file at path is a whole, consistent store
// database, such as WriteTo writes, and returns its revision. It reads
// every page.
func Verify(path string) (int64, error) {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: lockTimeout})
	if err != nil {
		return 0, fmt.Errorf("%s: %w: %w", path, ErrNotSnapshot, err)
	}
	defer db.Close()
	var rev int64
	err = db.View(func(tx *bbolt.Tx) error {
		var err error
		rev, err = checkTx(tx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return rev, nil
}

// lockTimeout bounds the wait for a file another process has open.
const lockTimeout = 2 * time.Second

// checkTx checks the layout and every page, and returns the revision.
func checkTx(tx *bbolt.Tx) (int64, error) {
	for _, name := range [][]byte{bucketMeta, bucketRev, bucketKey, bucketHist} {
		if tx.Bucket(name) == nil {
			return 0, fmt.Errorf("%w: no %s bucket", ErrNotSnapshot, name)
		}
	}
	rev, compacted := revisions(tx)
	if rev < 1 || compacted < 1 || compacted > rev {
		return 0, fmt.Errorf("%w: revision %d, compacted %d", ErrNotSnapshot, rev, compacted)
	}
	for err := range tx.Check() {
		return 0, fmt.Errorf("%w: %w", ErrNotSnapshot, err)
	}
	return rev, nil
}

// RestoreOptions configure Restore.
type RestoreOptions struct {
	// BumpRevision is added to the snapshot's revision, which is also
	// marked compacted. Clients that saw revisions newer than the
	// snapshot's, from the store it was taken of, then get "410 Gone"
	// and list again instead of missing the changes the restore undid,
	// and objects written afterwards get resourceVersions none of them
	// has seen. It must exceed the writes made after the snapshot; 0
	// restores the revision as it was.
	BumpRevision int64
}

// ErrExists means Restore would overwrite a database.
var ErrExists = errors.New("a database is already there")

// Restore makes the store at path from the snapshot file, checking it
// first, and returns the restored revision. path must not exist, and no
// store may have it open. A log left beside an old database at path is
// removed, as it belongs to that database.
func Restore(snapshot, path string, opts RestoreOptions) (int64, error) {
	if opts.BumpRevision < 0 {
		return 0, fmt.Errorf("bolt: restore: negative revision bump %d", opts.BumpRevision)
	}
	if _, err := os.Stat(path); err == nil {
		return 0, fmt.Errorf("bolt: restore to %s: %w; move it away first", path, ErrExists)
	}
	tmp := path + ".restoring"
	if err := copyFile(snapshot, tmp); err != nil {
		return 0, fmt.Errorf("bolt: restore: %w", err)
	}
	rev, err := prepareRestored(tmp, opts.BumpRevision)
	if err == nil {
		err = removeLog(path)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = durablefile.SyncDir(filepath.Dir(path))
	}
	if err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("bolt: restore %s: %w", snapshot, err)
	}
	return rev, nil
}

// prepareRestored checks the copied file and bumps its revision.
func prepareRestored(path string, bump int64) (int64, error) {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockTimeout, NoFreelistSync: true, FreelistType: bbolt.FreelistMapType})
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNotSnapshot, err)
	}
	var rev int64
	err = db.Update(func(tx *bbolt.Tx) error {
		var err error
		if rev, err = checkTx(tx); err != nil || bump == 0 {
			return err
		}
		rev += bump
		meta := tx.Bucket(bucketMeta)
		if err := meta.Put(metaRevision, revBytes(rev)); err != nil {
			return err
		}
		// The store resumes the compaction when it opens.
		return meta.Put(metaCompacted, revBytes(rev))
	})
	// bbolt syncs a commit unless told not to, and Close adds nothing.
	return rev, errors.Join(err, db.Close())
}

// removeLog removes the log of the database that was at path, unless a
// store still has it open.
func removeLog(path string) error {
	f, err := os.OpenFile(path+walSuffix, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lockFile(f, lockTimeout); err != nil {
		if errors.Is(err, errWouldBlock) {
			return &LockedError{Path: path}
		}
		return err
	}
	return os.Remove(path + walSuffix)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	return errors.Join(err, out.Close())
}

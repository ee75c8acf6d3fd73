package bolt

import (
	"context"
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// request is one write waiting for the writer goroutine.
type request struct {
	typ   storage.EventType
	key   string
	value []byte
	ifRev int64

	// Filled in by the writer before done is closed.
	rev  int64
	prev storage.KeyValue
	err  error
	done chan struct{}
}

// Create implements storage.Interface.
func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	r, err := s.write(ctx, &request{typ: storage.Added, key: key, value: value})
	return r.rev, err
}

// Update implements storage.Interface.
func (s *Store) Update(ctx context.Context, key string, value []byte, ifRevision int64) (int64, error) {
	r, err := s.write(ctx, &request{typ: storage.Modified, key: key, value: value, ifRev: ifRevision})
	return r.rev, err
}

// Delete implements storage.Interface.
func (s *Store) Delete(ctx context.Context, key string, ifRevision int64) (storage.KeyValue, int64, error) {
	r, err := s.write(ctx, &request{typ: storage.Deleted, key: key, ifRev: ifRevision})
	return r.prev, r.rev, err
}

// write hands r to the writer and waits for its answer. Once the writer
// has taken r, the caller waits for the outcome even if ctx ends, because
// the write may already be on its way to the disk and the caller must not
// be told it failed when it did not.
func (s *Store) write(ctx context.Context, r *request) (*request, error) {
	if err := storage.ValidateKey(r.key); err != nil {
		return r, err
	}
	r.done = make(chan struct{})
	select {
	case s.reqs <- r:
	case <-s.closing:
		return r, storage.ErrClosed
	case <-ctx.Done():
		return r, ctx.Err()
	}
	<-r.done
	return r, r.err
}

// writeLoop is the single writer. It takes every request that is waiting,
// applies them in one transaction with one fsync, publishes the changes
// to watchers in revision order and only then answers the callers.
func (s *Store) writeLoop() {
	defer close(s.writerDone)
	batch := make([]*request, 0, s.maxBatch)
	for {
		select {
		case r := <-s.reqs:
			batch = append(batch, r)
		case <-s.flushed:
			s.flushPending = false
			s.sinceCheckpoint = 0
			s.commitOpen()
			if s.pin != nil && s.broken == nil {
				if err := s.checkpoint(); err != nil {
					s.broken = err
				}
			}
			continue
		case <-s.commitReq:
			s.commitOpen()
			continue
		case <-s.openTimerC():
			s.commitOpen()
			continue
		case <-s.closing:
			s.commitOpen()
			return
		}
	fill:
		for len(batch) < s.maxBatch {
			select {
			case r := <-s.reqs:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		s.commit(batch)
		for _, r := range batch {
			close(r.done)
		}
		clear(batch)
		batch = batch[:0]
		if s.openBatches >= openBatchLimit {
			s.commitOpen()
		}
	}
}

// commit applies batch in one transaction. A request whose precondition
// fails gets its own error and leaves the others unaffected; an error
// from bbolt or the log fails the whole batch.
func (s *Store) commit(batch []*request) {
	events, err := s.commitBatch(batch)
	if err == errNothingWritten {
		return
	}
	if err != nil {
		err = fmt.Errorf("bolt: commit: %w", err)
		for _, r := range batch {
			r.rev, r.prev, r.err = 0, storage.KeyValue{}, err
		}
		return
	}
	// A reader that learns of these revisions from a watch must find
	// them: view waits for s.rev to be committed, so s.rev moves first.
	s.rev.Store(events[len(events)-1].Revision)
	s.feed.Publish(events)
}

func (s *Store) commitBatch(batch []*request) ([]storage.Event, error) {
	if s.broken != nil {
		return nil, s.broken
	}
	if s.pin != nil {
		if err := s.openTx(); err != nil {
			return nil, err
		}
		if !s.nearMapEnd(s.open, batchBytes(batch)) {
			return s.commitBatchOpen(batch)
		}
		// Near the end of the map: commit what is open, then leave
		// pinned mode below.
		s.commitOpen()
		if s.broken != nil {
			return nil, s.broken
		}
	}
	tx, err := s.db.Begin(true)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	events, _, err := s.apply(tx, batch, 0)
	if err != nil {
		return nil, err
	}
	size := batchBytes(batch)
	if s.pin != nil && s.nearMapEnd(tx, size) {
		if err := s.unpin(tx); err != nil {
			s.broken = err
			return nil, err
		}
	}
	if s.pin != nil {
		if err := s.log.appendBatch(events[0].Revision, events); err != nil {
			s.broken = err
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		if s.pin != nil {
			if uerr := s.log.unappend(); uerr != nil {
				s.broken = uerr
			}
		}
		return nil, err
	}
	s.setCommitted(events[len(events)-1].Revision)
	if s.pin != nil {
		s.requestCheckpoint()
	}
	return events, nil
}

// batchBytes is what a batch's keys and values come to.
func batchBytes(batch []*request) int {
	n := 0
	for _, r := range batch {
		n += len(r.key) + len(r.value)
	}
	return n
}

// requestCheckpoint has the flusher prepare a checkpoint within
// checkpointEvery, or at once when the log is large.
func (s *Store) requestCheckpoint() {
	if !s.flushPending {
		s.flushPending = true
		s.flushReq <- struct{}{} // buffered, and empty while none is pending
	}
	s.sinceCheckpoint++
	if s.log.off-s.log.recordStart() > checkpointBytes || s.sinceCheckpoint == checkpointCommits {
		select {
		case s.flushNow <- struct{}{}:
		default:
		}
	}
}

// apply performs batch in tx and returns the changes made and what they
// add to the usage. pending is what earlier batches in tx added, which
// bbolt does not count until tx commits.
func (s *Store) apply(tx *bbolt.Tx, batch []*request, pending int64) ([]storage.Event, int64, error) {
	rev := s.rev.Load()
	events := make([]storage.Event, 0, len(batch))
	w := writeTx{tx: tx, b: bucketsOf(tx), chunkSize: s.chunkSize}
	var used, start int64
	if s.quota > 0 {
		used = s.usage(tx) + pending
		start = used
	}
	for _, r := range batch {
		// Past the quota only deletes go through: they are how the
		// store gets back under it.
		if s.quota > 0 && r.typ != storage.Deleted {
			if err := storage.CheckQuota(storage.Usage{Bytes: used, Quota: s.quota}); err != nil {
				r.err = err
				continue
			}
			used += s.writeCost(r.key, r.value)
		}
		ev, err := w.apply(r, rev+1)
		if err != nil {
			if isPrecondition(err) {
				r.err = err
				continue
			}
			return nil, 0, err
		}
		rev++
		r.rev = rev
		events = append(events, ev)
	}
	if len(events) == 0 {
		// Every request failed its precondition: nothing was written,
		// and no fsync is owed.
		return nil, 0, errNothingWritten
	}
	return events, used - start, tx.Bucket(bucketMeta).Put(metaRevision, revBytes(rev))
}

var errNothingWritten = errors.New("bolt: nothing to write")

func isPrecondition(err error) bool {
	switch err.(type) {
	case *storage.ConflictError:
		return true
	}
	return err == storage.ErrNotFound || err == storage.ErrAlreadyExists
}

type buckets struct{ rev, key, hist *bbolt.Bucket }

func bucketsOf(tx *bbolt.Tx) buckets {
	b := buckets{rev: tx.Bucket(bucketRev), key: tx.Bucket(bucketKey), hist: tx.Bucket(bucketHist)}
	// Records are appended in revision order: packing pages full keeps
	// the file small, where the default half-full split would double it.
	b.rev.FillPercent = 1.0
	return b
}

type writeTx struct {
	tx        *bbolt.Tx
	b         buckets
	chunkSize int
}

// apply performs r at revision rev and returns its event.
func (w writeTx) apply(r *request, rev int64) (storage.Event, error) {
	b := w.b
	key := []byte(r.key)
	cur := bytesRev(b.key.Get(key))
	ev := storage.Event{Type: r.typ, Key: r.key, Revision: rev}
	rec := record{typ: r.typ, key: r.key, value: r.value}
	switch {
	case r.typ == storage.Added && cur != 0:
		return ev, storage.ErrAlreadyExists
	case r.typ != storage.Added && cur == 0:
		return ev, storage.ErrNotFound
	case r.typ != storage.Added && r.ifRev != 0 && r.ifRev != cur:
		return ev, &storage.ConflictError{Key: r.key, Expected: r.ifRev, Current: cur}
	}
	if r.typ != storage.Added {
		prev, err := readRecord(w.tx, cur)
		if err != nil {
			return ev, err
		}
		rec.prevRev = cur
		ev.PrevValue = prev.value
		if r.typ == storage.Deleted {
			rec.value = nil
			ev.Value = prev.value
			r.prev = storage.KeyValue{Key: r.key, Value: prev.value, Revision: cur}
		}
	}
	flag := []byte{histValue}
	if r.typ == storage.Deleted {
		flag[0] = histTombstone
		if err := b.key.Delete(key); err != nil {
			return ev, err
		}
	} else if err := b.key.Put(key, revBytes(rev)); err != nil {
		return ev, err
	}
	enc := rec.encode()
	if r.typ != storage.Deleted {
		// Watchers share the encoded copy: bbolt only reads it, and the
		// caller's slice may change once the write returns.
		ev.Value = enc[len(enc)-len(r.value):]
	}
	if err := putRecord(b.rev, rev, enc, w.chunkSize); err != nil {
		return ev, err
	}
	return ev, b.hist.Put(versionKey(r.key, rev), flag)
}

package storage

import "context"

// Interface is a revisioned key/value store. All methods are safe for
// concurrent use. Values returned by the store, and values in events, are
// shared: callers must not modify them.
//
// Revisions: a new store is at revision 1. Every successful Create, Update
// and Delete advances the revision by exactly one and is stamped with it;
// failed writes consume no revision. Revisions never go backwards, across
// restarts included.
type Interface interface {
	// Get returns the current value of key and the revision that last
	// wrote it. A missing key is ErrNotFound.
	Get(ctx context.Context, key string) (KeyValue, error)

	// List returns the keys under prefix in ascending key order, as they
	// were at one revision: opts.Revision, or the revision named by
	// opts.Continue, or the current revision when both are unset. With
	// opts.Limit > 0 at most Limit items come back, and Continue in the
	// result resumes the listing at the same revision. A revision older
	// than the retained history is a *CompactedError (ErrCompacted); a
	// revision above the current one is ErrFutureRevision; a malformed
	// continue token is ErrInvalidContinue.
	List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error)

	// Create stores value under key if the key does not exist and returns
	// the new revision. An existing key is ErrAlreadyExists. When Create
	// returns without error the write is durable (for durable backends)
	// and visible to Get, List and Watch. A store may keep value itself:
	// the caller must not modify it afterwards.
	Create(ctx context.Context, key string, value []byte) (int64, error)

	// Update replaces the value of an existing key and returns the new
	// revision. When ifRevision is not zero it must equal the key's current
	// revision, else the write is refused with a *ConflictError
	// (ErrConflict). A missing key is ErrNotFound. value is kept as
	// Create keeps it.
	Update(ctx context.Context, key string, value []byte, ifRevision int64) (int64, error)

	// Delete removes key. The same ifRevision rule as Update applies. It
	// returns the value that was deleted (with the revision that wrote it)
	// and the revision of the delete.
	Delete(ctx context.Context, key string, ifRevision int64) (KeyValue, int64, error)

	// Watch streams every change under prefix with a revision greater than
	// afterRevision, in revision order, with no gaps and no duplicates.
	// afterRevision zero means the current revision (only future
	// changes). A revision older than the retained history is a
	// *CompactedError, returned at once. The channel closes when ctx ends
	// or the store closes; if the watch fails while running (for example
	// it fell behind a compaction), its last event carries Err. A store
	// that can be asked how far a watch has read (ProgressRequester)
	// answers with Progress events, which carry only a Revision.
	Watch(ctx context.Context, prefix string, afterRevision int64) (<-chan Event, error)

	// Revision returns the current revision.
	Revision(ctx context.Context) (int64, error)

	// Compact discards the history at and below revision: afterwards
	// reads and watches at revisions below it fail with ErrCompacted,
	// while the state at revision itself stays readable. Compacting to a
	// revision at or below the last compaction is a no-op; above the
	// current revision is ErrFutureRevision. Compaction runs online:
	// durable backends work in short transactions so readers and writers
	// wait at most one step; the memory backend holds its lock for as long
	// as it takes to drop the released history.
	Compact(ctx context.Context, revision int64) error

	// Close releases the store. Running watches end; later calls return
	// ErrClosed.
	Close() error
}

// KeyValue is one key's value and the revision that wrote it.
type KeyValue struct {
	Key      string
	Value    []byte
	Revision int64
}

// ListOptions selects the revision and page of a List.
type ListOptions struct {
	// Revision to read at; zero means current. Ignored when Continue is set.
	Revision int64
	// Limit caps the number of items; zero or negative means no cap.
	Limit int64
	// Continue is a token from an earlier ListResult for the same prefix.
	Continue string
}

// ListResult is one page of a List.
type ListResult struct {
	Items []KeyValue
	// Revision the list was read at; pages of one listing share it.
	Revision int64
	// Continue is set when more items remain.
	Continue string
}

// EventType says what a change did to its key.
type EventType uint8

// The change kinds.
const (
	Added EventType = iota + 1
	Modified
	Deleted
	// Progress changes nothing: every change up to its Revision has
	// been sent. Only a ProgressRequester's watches send it.
	Progress
)

// ProgressRequester is a store whose watches report, when asked, how far
// they have read, even when nothing under their prefix changed: a cache
// fed by a watch can then tell it holds every write up to the store's
// current revision (etcd, where keys outside the prefix move the
// revision too).
type ProgressRequester interface {
	// RequestProgress has every running watch send a Progress event
	// once it has sent everything up to the revision current now.
	RequestProgress(ctx context.Context) error
}

func (t EventType) String() string {
	switch t {
	case Added:
		return "ADDED"
	case Modified:
		return "MODIFIED"
	case Deleted:
		return "DELETED"
	case Progress:
		return "PROGRESS"
	}
	return "UNKNOWN"
}

// Event is one change seen by a watch.
type Event struct {
	Type EventType
	Key  string
	// Value is the new value; for Deleted, the last value before the delete.
	Value []byte
	// PrevValue is the value before the change, for Modified and Deleted.
	PrevValue []byte
	// Revision of the change (for Deleted, of the delete itself).
	Revision int64
	// Err, when set, ends the watch; the other fields are empty.
	Err error
}

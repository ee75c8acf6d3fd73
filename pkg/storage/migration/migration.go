// Package migration moves a store's keys into another backend: it is
// what `setpoint migrate` runs to take a bolt store to etcd. It sits
// beside the backends, outside the data path, and reads and writes
// through storage.Interface alone, so the copy holds exactly the keys and
// values the server wrote.
//
// Clients that watched the old store hold its revisions. The copy keeps
// their view monotonic: the target's revision is first moved past the
// source's, so every copied key gets a revision newer than any a client
// has seen, and the target is then compacted at its own revision, so a
// watch or list from an old revision gets "410 Gone" and the client
// lists again, as after any compaction.
package migration

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Target is a store keys are copied into.
type Target interface {
	storage.Interface
	// Advance moves the store's revision on to at least rev without
	// changing any key, and returns the revision reached.
	Advance(ctx context.Context, rev int64) (int64, error)
}

// Options configure Copy.
type Options struct {
	// Prefix is the keys to copy; "" means "/registry/", every key the
	// server writes.
	Prefix string
	// PageSize is how many keys are read at a time (default 500), which
	// bounds the memory a copy takes.
	PageSize int64
	// Workers write at once (default 32).
	Workers int
	// Progress, when set, is called after each page with the keys copied
	// so far.
	Progress func(copied int)
}

// Result says what Copy did.
type Result struct {
	// Keys is the number of keys copied.
	Keys int
	// SourceRevision is the source's revision the copy was read at.
	SourceRevision int64
	// Revision is the target's revision afterwards, at which it is
	// compacted.
	Revision int64
}

// ErrTargetNotEmpty means the target already holds keys under the prefix.
var ErrTargetNotEmpty = errors.New("migration: the target already holds keys")

// Copy copies every key under the prefix from the source, as it stands
// at one revision, into an empty target. Nothing may write to either
// meanwhile: a server on the source would write changes the copy misses.
func Copy(ctx context.Context, from storage.Interface, to Target, opts Options) (Result, error) {
	if opts.Prefix == "" {
		opts.Prefix = "/registry/"
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 500
	}
	if opts.Workers <= 0 {
		opts.Workers = 32
	}
	existing, err := to.List(ctx, opts.Prefix, storage.ListOptions{Limit: 1})
	if err != nil {
		return Result{}, fmt.Errorf("migration: read the target: %w", err)
	}
	if len(existing.Items) > 0 {
		return Result{}, fmt.Errorf("%w under %s, such as %s", ErrTargetNotEmpty, opts.Prefix, existing.Items[0].Key)
	}
	res := Result{}
	if res.SourceRevision, err = from.Revision(ctx); err != nil {
		return Result{}, fmt.Errorf("migration: read the source: %w", err)
	}
	if _, err := to.Advance(ctx, res.SourceRevision); err != nil {
		return Result{}, fmt.Errorf("migration: advance the target's revision to %d: %w", res.SourceRevision, err)
	}
	err = eachPage(ctx, "source", from, opts.Prefix, res.SourceRevision, opts.PageSize, func(items []storage.KeyValue) error {
		if err := put(ctx, to, items, opts.Workers); err != nil {
			return err
		}
		res.Keys += len(items)
		if opts.Progress != nil {
			opts.Progress(res.Keys)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if res.Revision, err = to.Revision(ctx); err != nil {
		return res, fmt.Errorf("migration: read the target: %w", err)
	}
	if err := to.Compact(ctx, res.Revision); err != nil {
		return res, fmt.Errorf("migration: compact the target at %d: %w", res.Revision, err)
	}
	return res, verify(ctx, to, opts, res.Keys)
}

// put creates the items in the target, several at a time.
func put(ctx context.Context, to storage.Interface, items []storage.KeyValue, workers int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan storage.KeyValue)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range min(workers, len(items)) {
		wg.Go(func() {
			for kv := range next {
				if _, err := to.Create(ctx, kv.Key, kv.Value); err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("migration: write %s: %w", kv.Key, err)
					}
					mu.Unlock()
					cancel()
				}
			}
		})
	}
feed:
	for _, kv := range items {
		select {
		case next <- kv:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// eachPage hands fn the keys under prefix at revision rev (0: current),
// a page at a time; which names the store in errors.
func eachPage(ctx context.Context, which string, st storage.Interface, prefix string, rev, limit int64, fn func([]storage.KeyValue) error) error {
	list := storage.ListOptions{Revision: rev, Limit: limit}
	for {
		page, err := st.List(ctx, prefix, list)
		if err != nil {
			return fmt.Errorf("migration: read the %s: %w", which, err)
		}
		if err := fn(page.Items); err != nil {
			return err
		}
		if page.Continue == "" {
			return nil
		}
		list = storage.ListOptions{Continue: page.Continue, Limit: limit}
	}
}

// verify counts the target's keys: a writer that slipped in would show.
func verify(ctx context.Context, to storage.Interface, opts Options, want int) error {
	got := 0
	err := eachPage(ctx, "target", to, opts.Prefix, 0, opts.PageSize, func(items []storage.KeyValue) error {
		got += len(items)
		return nil
	})
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("migration: the target holds %d keys after copying %d: did something else write to it?", got, want)
	}
	return nil
}

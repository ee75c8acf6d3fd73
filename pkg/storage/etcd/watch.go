package etcd

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// watchBuffer is how many events a watch holds for a reader that is
// behind. Past it the etcd watch is cancelled and, once the reader has
// caught up, started again from the next revision: etcd's client would
// otherwise buffer without bound, and a reader overtaken by compaction
// would never learn of it.
const watchBuffer = 1024

// Watch implements storage.Interface.
func (s *Store) Watch(ctx context.Context, prefix string, afterRevision int64) (<-chan storage.Event, error) {
	if err := s.checkPrefix(prefix); err != nil {
		return nil, err
	}
	if afterRevision == 0 {
		rev, err := s.Revision(ctx)
		if err != nil {
			return nil, err
		}
		afterRevision = rev
	} else {
		// A read at afterRevision fails exactly when the history after
		// it is no longer complete.
		_, err := s.cli.Get(ctx, s.key(prefix), clientv3.WithPrefix(), clientv3.WithRev(afterRevision), clientv3.WithCountOnly())
		if err != nil {
			if err = s.fromEtcd(ctx, err, afterRevision); err != storage.ErrFutureRevision {
				return nil, err
			}
		}
	}
	out := make(chan storage.Event)
	s.watches.Add(1)
	go func() {
		defer s.watches.Done()
		defer close(out)
		s.follow(ctx, prefix, afterRevision, out)
	}()
	return out, nil
}

// follow sends every change under prefix after next to out until ctx
// ends, the store closes or the history it needs is compacted.
func (s *Store) follow(ctx context.Context, prefix string, next int64, out chan<- storage.Event) {
	var (
		queue  []storage.Event
		wch    clientv3.WatchChan
		cancel context.CancelFunc = func() {}
		// ended is the error that ends the watch once queue is sent.
		ended error
	)
	defer func() { cancel() }()
	for {
		if wch == nil && len(queue) == 0 {
			if ended != nil {
				send(ctx, s.closing, out, storage.Event{Err: ended})
				return
			}
			wch, cancel = s.watchFrom(ctx, prefix, next+1)
		}
		var sendCh chan<- storage.Event
		var head storage.Event
		if len(queue) > 0 {
			sendCh, head = out, queue[0]
		}
		var recv clientv3.WatchChan
		if len(queue) < watchBuffer {
			recv = wch
		}
		select {
		case sendCh <- head:
			queue[0] = storage.Event{}
			queue = queue[1:]
		case resp, ok := <-recv:
			switch {
			case !ok || resp.Canceled && resp.CompactRevision == 0:
				// The stream broke (no leader, a member gone): start
				// again from the next revision once the queue is out.
				cancel()
				wch = nil
				if ctx.Err() != nil {
					return
				}
			case resp.CompactRevision > 0:
				cancel()
				wch = nil
				ended = &storage.CompactedError{Requested: next, Oldest: resp.CompactRevision}
			case resp.IsProgressNotify():
				if rev := resp.Header.Revision; rev > next {
					queue = append(queue, storage.Event{Type: storage.Progress, Revision: rev})
					next = rev
				}
			default:
				for _, ev := range resp.Events {
					queue = append(queue, s.event(ev))
					next = ev.Kv.ModRevision
				}
				if len(queue) >= watchBuffer {
					// The reader is behind: let etcd drop its buffer and
					// replay from history when the reader is back.
					cancel()
					wch = nil
				}
			}
		case <-ctx.Done():
			return
		case <-s.closing:
			return
		}
	}
}

// RequestProgress implements storage.ProgressRequester. etcd answers on
// the stream the request travels on, which is the one every watch of
// this store shares: they all carry the same require-leader metadata.
func (s *Store) RequestProgress(ctx context.Context) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := s.cli.RequestProgress(clientv3.WithRequireLeader(ctx)); err != nil {
		return s.fromEtcd(ctx, err, 0)
	}
	return nil
}

// watchFrom starts an etcd watch of prefix at rev; cancel ends it.
func (s *Store) watchFrom(ctx context.Context, prefix string, rev int64) (clientv3.WatchChan, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	// Without a leader the member's view may be stale: the watch ends
	// and starts again, possibly on another member.
	wch := s.cli.Watch(clientv3.WithRequireLeader(ctx), s.key(prefix),
		clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithPrevKV())
	return wch, cancel
}

func send(ctx context.Context, closing <-chan struct{}, out chan<- storage.Event, ev storage.Event) {
	select {
	case out <- ev:
	case <-ctx.Done():
	case <-closing:
	}
}

// event converts one etcd event.
func (s *Store) event(ev *clientv3.Event) storage.Event {
	kv := ev.Kv
	out := storage.Event{Key: s.unkey(kv.Key), Revision: kv.ModRevision, Value: kv.Value}
	if ev.PrevKv != nil {
		out.PrevValue = ev.PrevKv.Value
	}
	switch {
	case ev.Type == clientv3.EventTypeDelete:
		out.Type = storage.Deleted
		out.Value = out.PrevValue
	case kv.CreateRevision == kv.ModRevision:
		out.Type = storage.Added
	default:
		out.Type = storage.Modified
	}
	return out
}

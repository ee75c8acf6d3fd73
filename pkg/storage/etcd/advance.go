package etcd

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// advanceWorkers write at once while Advance moves the revision on: etcd
// commits concurrent puts together, one fsync for many revisions.
const advanceWorkers = 64

// Advance moves etcd's revision on to at least rev, so that what is
// written next gets revisions past every one a client has seen from a
// store being moved here. etcd's revision grows by one per write, so it
// writes: keys just after the store's prefix, outside every range the
// store reads (its keys all continue the prefix with "/"), deleted again
// before it returns. It returns the revision reached.
func (s *Store) Advance(ctx context.Context, rev int64) (int64, error) {
	current, err := s.Revision(ctx)
	if err != nil || current >= rev {
		return current, err
	}
	base := s.prefix + "\x00advance/"
	var (
		wg     sync.WaitGroup
		stop   atomic.Bool // the revision is reached, or a put failed
		mu     sync.Mutex
		failed error
	)
	for w := range advanceWorkers {
		key := base + strconv.Itoa(w)
		wg.Go(func() {
			// A put is never cancelled once sent: etcd may apply it
			// after the client gave up on it, and then after the
			// delete below, leaving the key behind. Workers only stop
			// sending.
			for !stop.Load() {
				resp, err := s.cli.Put(ctx, key, "")
				if err != nil {
					mu.Lock()
					if failed == nil {
						failed = err
					}
					mu.Unlock()
					stop.Store(true)
					return
				}
				// The delete below takes one more revision.
				if resp.Header.Revision >= rev-1 {
					stop.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if failed != nil {
		return 0, s.fromEtcd(ctx, failed, 0)
	}
	resp, err := s.cli.Delete(ctx, base, clientv3.WithPrefix())
	if err != nil {
		return 0, s.fromEtcd(ctx, err, 0)
	}
	return resp.Header.Revision, nil
}

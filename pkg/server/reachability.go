package server

import (
	"context"
	"errors"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// reachability probes a store that lives elsewhere (etcd) and logs when
// it stops answering and when it answers again, so that a server which
// cannot reach its store says why, while /readyz fails and requests get
// 503. Probes back off from probeMin to probeMax while it is down.
type reachability struct {
	store interface {
		Revision(ctx context.Context) (int64, error)
	}
	log interface {
		Warn(msg string, args ...any)
		Info(msg string, args ...any)
	}
}

const (
	probeMin     = time.Second
	probeMax     = 30 * time.Second
	probeTimeout = 5 * time.Second
	probeUp      = 10 * time.Second
)

// Start probes until ctx ends.
func (r reachability) Start(ctx context.Context) error {
	wait, down := time.Duration(0), false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		_, err := r.store.Revision(pctx)
		cancel()
		switch {
		case ctx.Err() != nil || errors.Is(err, storage.ErrClosed):
			return nil
		case err != nil:
			if !down {
				r.log.Warn("storage unreachable; requests get 503 and /readyz fails until it answers", "err", err)
				down, wait = true, probeMin
			} else {
				wait = min(2*wait, probeMax)
			}
		default:
			if down {
				r.log.Info("storage reachable again")
			}
			down, wait = false, probeUp
		}
	}
}

package response

import (
	"context"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// Fail answers a watch that could not start once its answer began: the
// stream carries one ERROR event, which client-go handles (a 410 by
// relisting) as it would one sent later.
func (ws *WatchStream) Fail(e *apierror.StatusError) {
	ws.start()
	defer ws.finish()
	ws.sendStatus(e)
	ws.flush()
}

// Serve streams watcher's events until the watcher ends, the timeout
// passes, the client leaves (ctx) or a write fails. The caller stops the
// watcher.
func (ws *WatchStream) Serve(ctx context.Context, watcher *watchcache.Watcher) {
	ws.start()
	defer ws.finish()
	match := ws.cfg.Match
	for _, o := range watcher.Initial {
		if o = ws.served(o); o != nil && (match == nil || match(o)) {
			ws.send("ADDED", o, nil, 0)
		}
	}
	ws.lastRev = watcher.InitialRevision
	if ws.cfg.EndMarker {
		ws.sendBookmark(watcher.InitialRevision, true)
	}
	for _, ev := range watcher.Replay {
		ws.sendEvent(ev)
	}
	ws.flush()
	if ws.err != nil {
		return
	}
	timeout := time.NewTimer(ws.cfg.Timeout)
	defer timeout.Stop()
	var bookmarks <-chan time.Time
	if ws.cfg.BookmarkInterval > 0 {
		t := time.NewTicker(ws.cfg.BookmarkInterval)
		defer t.Stop()
		bookmarks = t.C
	}
	for {
		select {
		case ev, ok := <-watcher.C():
			if !ok {
				return
			}
			ws.sendEvent(ev)
			// Flush once nothing else is waiting, so a burst goes out in
			// one write and a lone event goes out at once.
			if len(watcher.C()) == 0 {
				ws.flush()
			}
		case <-bookmarks:
			rev := ws.cfg.Revision()
			for drained := false; !drained; {
				select {
				case ev, ok := <-watcher.C():
					if !ok {
						ws.flush()
						return
					}
					ws.sendEvent(ev)
				default:
					drained = true
				}
			}
			ws.sendBookmark(max(rev, ws.lastRev), false)
			ws.flush()
		case <-timeout.C:
			ws.flush()
			return
		case <-ctx.Done():
			return
		}
		if ws.err != nil {
			return
		}
	}
}

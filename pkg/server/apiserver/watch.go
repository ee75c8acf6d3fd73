package apiserver

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// defaultWatchWriteTimeout bounds how long one write to a watch client
// may block; a client that stops reading is disconnected instead of
// pinning the stream forever.
const defaultWatchWriteTimeout = time.Minute

// watchParams are a watch request's parsed parameters.
type watchParams struct {
	sel        params.Selection
	initial    bool  // send the current state first
	after      int64 // otherwise, events after this revision
	consistent bool  // the initial state must be the latest
	notOlder   int64 // the initial state must be at least this new
	bookmarks  bool
	endMarker  bool // WatchList: bookmark the end of the initial state
	timeout    time.Duration
}

func parseWatch(req *request) (watchParams, error) {
	q := req.query
	var p watchParams
	var err error
	if p.sel, err = params.ParseSelection(q, req.res); err != nil {
		return p, err
	}
	p.bookmarks = q.Get("allowWatchBookmarks") == "true"
	// kube-apiserver's default: a random timeout between 30 and 60
	// minutes spreads the re-watches of many clients.
	p.timeout = 30*time.Minute + rand.N(30*time.Minute)
	if ts := q.Get("timeoutSeconds"); ts != "" {
		n, err := strconv.ParseInt(ts, 10, 64)
		if err != nil || n < 0 {
			return p, apierror.BadRequest("invalid timeoutSeconds %q", ts)
		}
		if n > 0 {
			p.timeout = time.Duration(n) * time.Second
		}
	}
	rv, match := q.Get("resourceVersion"), q.Get("resourceVersionMatch")
	var n int64
	if rv != "" {
		if n, err = params.ParseRV(rv); err != nil {
			return p, err
		}
	}
	switch sie := q.Get("sendInitialEvents"); sie {
	case "true", "false":
		if match != "NotOlderThan" {
			return p, apierror.BadRequest("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
		}
		if sie == "true" {
			if !p.bookmarks {
				return p, apierror.BadRequest("sendInitialEvents requires setting allowWatchBookmarks to true")
			}
			p.initial, p.endMarker = true, true
			p.consistent = rv == ""
			p.notOlder = n
			return p, nil
		}
		if rv == "" {
			return p, apierror.BadRequest("sendInitialEvents=false requires a resourceVersion")
		}
		p.after = n
		return p, nil
	case "":
	default:
		return p, apierror.BadRequest("invalid sendInitialEvents %q", sie)
	}
	if match != "" {
		return p, apierror.BadRequest("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
	}
	switch {
	case rv == "":
		p.initial, p.consistent = true, true
	case n == 0:
		p.initial = true
	default:
		p.after = n
	}
	return p, nil
}

func (s *Server) watch(w http.ResponseWriter, r *http.Request, req *request) error {
	p, err := parseWatch(req)
	if err != nil {
		return err
	}
	f, err := response.NegotiateWatch(r.Header.Get("Accept"), req.res, p.endMarker)
	if err != nil {
		return err
	}
	ctx := r.Context()
	watcher, err := s.objects.Watch(ctx, req.res, req.namespace, generic.WatchOptions{
		ReadPoint: generic.ReadPoint{Consistent: p.consistent, NotOlder: p.notOlder}, Initial: p.initial, After: p.after,
	})
	cfg := response.WatchConfig{
		Resource: req.res, Format: f, Match: p.sel.Match(), IncludeObject: req.query.Get("includeObject"),
		Now: s.now, WriteTimeout: s.cfg.WatchWriteTimeout, Revision: s.cache.Revision,
		EndMarker: p.endMarker, Timeout: p.timeout, Events: s.metrics,
	}
	if p.bookmarks {
		cfg.BookmarkInterval = s.cfg.BookmarkInterval
	}
	ws := response.NewWatchStream(w, cfg)
	var started *generic.WatchError
	if errors.As(err, &started) {
		if errors.Is(err, watchcache.ErrExpired) {
			// A too-old revision is not an HTTP error: the stream carries
			// one ERROR event, which client-go turns into a relist.
			ws.Fail(apierror.Expired("too old resource version: " + strconv.FormatInt(started.Requested, 10) + " (" + strconv.FormatInt(started.Oldest, 10) + ")"))
		} else {
			ws.Fail(apierror.From(started.Err, req.res.GroupResource(), ""))
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer watcher.Stop()
	ws.Serve(ctx, watcher)
	return nil
}

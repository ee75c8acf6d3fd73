package response

import (
	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// sendEvent turns a cache event into what this watcher sees: with a
// selector, an object entering it is ADDED and one leaving it is DELETED
// (its previous content at the event's revision).
func (ws *WatchStream) sendEvent(ev *watchcache.Event) {
	ws.lastRev = ev.Revision
	if ev = ws.servedEvent(ev); ev == nil {
		return
	}
	match := ws.cfg.Match
	if match == nil {
		ws.send(eventType(ev.Type), ev.Object, ev, memoSlot(ev.Type, false))
		return
	}
	switch ev.Type {
	case watchcache.Added:
		if match(ev.Object) {
			ws.send("ADDED", ev.Object, ev, memoSlot(watchcache.Added, false))
		}
	case watchcache.Deleted:
		if match(ev.Object) {
			ws.send("DELETED", ev.Object, ev, memoSlot(watchcache.Deleted, false))
		}
	case watchcache.Modified:
		cur := match(ev.Object)
		old := ev.Prev != nil && match(ev.Prev)
		switch {
		case cur && old:
			ws.send("MODIFIED", ev.Object, ev, memoSlot(watchcache.Modified, false))
		case cur:
			ws.send("ADDED", ev.Object, ev, memoSlot(watchcache.Added, false))
		case old:
			left, err := ev.Memo(memoLeft, func() ([]byte, error) {
				return generic.AtRevision(ev.Prev.Served(), ev.Revision)
			})
			if err != nil {
				ws.err = err
				return
			}
			o := &watchcache.Object{Key: ev.Prev.Key, Namespace: ev.Prev.Namespace, Name: ev.Prev.Name,
				Revision: ev.Revision, APIVersion: ev.Prev.APIVersion, Labels: ev.Prev.Labels, Fields: ev.Prev.Fields, JSON: left}
			ws.send("DELETED", o, ev, memoSlot(watchcache.Deleted, true))
		}
	}
}

func eventType(t watchcache.EventType) string { return t.String() }

// Memo slots of an event: JSON frames for ADDED, MODIFIED, DELETED and
// DELETED-on-leaving-a-selector, then the same four in protobuf, with the
// leaving object's own bytes kept in the last.
const (
	memoLeft = 7
)

func memoSlot(t watchcache.EventType, left bool) int {
	i := int(t) - 1 // Added 0, Modified 1, Deleted 2
	if left {
		i = 3
	}
	return i
}

// served is generic.Served for a watch stream; on error the stream ends.
func (ws *WatchStream) served(o *watchcache.Object) *watchcache.Object {
	v, err := generic.Served(ws.cfg.Resource, o)
	if err != nil {
		ws.err = apierror.Internal(err)
		return nil
	}
	return v
}

// servedEvent is generic.ServedEvent for a watch stream; on error the
// stream ends.
func (ws *WatchStream) servedEvent(ev *watchcache.Event) *watchcache.Event {
	v, err := generic.ServedEvent(ws.cfg.Resource, ev)
	if err != nil {
		ws.err = apierror.Internal(err)
		return nil
	}
	return v
}

package apiserver

import (
	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// served is served for a watch stream; on error the stream ends.
func (ws *watchStream) served(o *watchcache.Object) *watchcache.Object {
	v, err := generic.Served(ws.res, o)
	if err != nil {
		ws.err = apierror.Internal(err)
		return nil
	}
	return v
}

// servedEvent is servedEvent for a watch stream; on error the stream
// ends.
func (ws *watchStream) servedEvent(ev *watchcache.Event) *watchcache.Event {
	v, err := generic.ServedEvent(ws.res, ev)
	if err != nil {
		ws.err = apierror.Internal(err)
		return nil
	}
	return v
}

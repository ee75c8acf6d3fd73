package job

import (
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// NewReconciler bridges to the external tests, which run against a live
// server and so cannot live in this package (pkg/server imports it): a
// Job reconciler reading through cache, with Events discarded.
func NewReconciler(cache client.Reader, api *client.Client, c clock.Clock) reconcile.Reconciler {
	return &reconciler{cache: cache, api: api, events: discard{}, clock: c, exp: &expectations{}, backoffs: &backoffs{}}
}

type discard struct{}

func (discard) Eventf(client.Object, string, string, string, ...any) {}

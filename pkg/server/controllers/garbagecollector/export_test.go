package garbagecollector

import (
	"log/slog"

	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// Bridges for the external tests, which run against a live server and so
// cannot live in this package (pkg/server imports it). They reach the
// collector as Setup builds it, to put faults between it and the server.

type (
	Runnable       = runnable
	InformerSource = informers
	ResourceLister = resourceLister
)

var Deletable = deletable

func (o Options) WithDefaults(log *slog.Logger) Options { return o.withDefaults(log) }

// NewRunnable builds the collector as Setup does, without adding it.
func NewRunnable(m *manager.Manager, opts Options) *Runnable {
	return &runnable{
		opts: opts.withDefaults(m.Logger()), informers: m,
		resources: m.API(), api: m.API(), scopes: m.RESTMapper(),
	}
}

func (r *runnable) Resources() ResourceLister     { return r.resources }
func (r *runnable) SetResources(l ResourceLister) { r.resources = l }
func (r *runnable) Informers() InformerSource     { return r.informers }
func (r *runnable) SetInformers(i InformerSource) { r.informers = i }

// Options are the collector's options, defaults filled in, to change
// before it starts.
func (r *runnable) Options() *Options { return &r.opts }

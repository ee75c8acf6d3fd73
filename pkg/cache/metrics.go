package cache

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

var pendingDesc = prometheus.NewDesc("informer_handler_pending",
	"Notifications waiting for an informer's handler, after coalescing by key.",
	[]string{"informer", "handler"}, nil)

// pendingSource is an informer as the gauge sees it.
type pendingSource interface {
	Name() string
	eachPending(func(handler string, n int))
}

// pendingCollector reads every registered informer's backlogs when
// scraped, so delivering a notification costs no metric update. One
// collector serves all informers on a Registerer.
type pendingCollector struct {
	mu      sync.Mutex
	sources map[pendingSource]struct{}
}

func (c *pendingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- pendingDesc }

func (c *pendingCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	srcs := make([]pendingSource, 0, len(c.sources))
	for s := range c.sources {
		srcs = append(srcs, s)
	}
	c.mu.Unlock()
	for _, s := range srcs {
		s.eachPending(func(handler string, n int) {
			ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(n), s.Name(), handler)
		})
	}
}

// registerPending adds src to reg's gauge, registering it on first use.
func registerPending(reg prometheus.Registerer, src pendingSource) (func(), error) {
	c := &pendingCollector{sources: map[pendingSource]struct{}{}}
	if err := reg.Register(c); err != nil {
		are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err)
		if !ok {
			return nil, err
		}
		if c, ok = are.ExistingCollector.(*pendingCollector); !ok {
			return nil, err
		}
	}
	c.mu.Lock()
	c.sources[src] = struct{}{}
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(c.sources, src)
		c.mu.Unlock()
	}, nil
}

package nodeagent

import (
	"context"
	"log/slog"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/events"
)

// kubeletComponent is the source.component of the kubelet's Events.
const kubeletComponent = "kubelet"

// kubeletEvents records Events as the kubelet of each simulated node
// would: component kubelet, host the node. A broadcaster's host is fixed,
// so each node gets its own, made on the node's first Event and run
// until the agent stops.
type kubeletEvents struct {
	client events.Client
	clock  clock.Clock
	log    *slog.Logger

	mu      sync.Mutex
	ctx     context.Context // nil until Start
	stopped bool            // Start is waiting for the broadcasters: no new ones
	byNode  map[string]*events.Recorder
	waiting []*events.Broadcaster // made before Start
	running sync.WaitGroup
}

func newKubeletEvents(c events.Client, clk clock.Clock, log *slog.Logger) *kubeletEvents {
	return &kubeletEvents{client: c, clock: clk, log: log, byNode: map[string]*events.Recorder{}}
}

// Start runs the nodes' broadcasters until ctx ends, and waits for them
// to flush.
func (k *kubeletEvents) Start(ctx context.Context) error {
	k.mu.Lock()
	k.ctx = ctx
	for _, b := range k.waiting {
		k.run(b)
	}
	k.waiting = nil
	k.mu.Unlock()
	<-ctx.Done()
	// No broadcaster may join once the wait begins: a WaitGroup's Add
	// must not race its Wait.
	k.mu.Lock()
	k.stopped = true
	k.mu.Unlock()
	k.running.Wait()
	return nil
}

// run starts b; k.mu is held.
func (k *kubeletEvents) run(b *events.Broadcaster) {
	k.running.Add(1)
	go func() {
		defer k.running.Done()
		_ = b.Start(k.ctx)
	}()
}

// nodeEventCache is each simulated kubelet's events.Options.CacheSize.
// A kubelet's 4096 entries are one process's; here a hundred nodes share
// one, and a node's pods (110 at most) and their recent Events fit in
// an eighth of that.
const nodeEventCache = 512

// recorder is node's kubelet's recorder; nil (which records nothing) if
// one cannot be made.
func (k *kubeletEvents) recorder(node string) *events.Recorder {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r, ok := k.byNode[node]; ok {
		return r
	}
	if k.stopped {
		return nil
	}
	b, err := events.NewBroadcaster(events.Options{Client: k.client, Host: node, CacheSize: nodeEventCache, Clock: k.clock, Logger: k.log})
	if err != nil {
		k.log.Error("kubelet event recorder unavailable", "node", node, "err", err)
		return nil
	}
	if k.ctx != nil {
		k.run(b)
	} else {
		k.waiting = append(k.waiting, b)
	}
	r := b.Recorder(kubeletComponent)
	k.byNode[node] = r
	return r
}

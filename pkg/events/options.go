package events

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// Client is what the recorder needs of a client: it creates and patches
// Events, and its scheme names the kinds of typed objects that carry no
// TypeMeta. *client.Client is one.
type Client interface {
	Create(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
	Patch(ctx context.Context, obj client.Object, patchType types.PatchType, data []byte, opts ...client.WriteOption) error
	Scheme() *runtime.Scheme
}

// Defaults. The queue, cache, spam and window values are client-go's, so
// a Setpoint controller is as loud, and as quiet, as the
// kube-controller-manager next to it.
const (
	DefaultBufferSize        = 1000
	DefaultCacheSize         = 4096
	DefaultAggregationWindow = 10 * time.Minute
	DefaultSimilarEvents     = 10
	DefaultSpamBurst         = 25
	DefaultSpamRefill        = 5 * time.Minute
	// DefaultMaxAttempts and DefaultRetryBackoff ride out about half a
	// minute of API server trouble (waits of 1, 2, 4, 8 and 16 s, each
	// jittered down by up to half). client-go waits up to two minutes,
	// but its writer, like this one, is a single goroutine: while it
	// waits, the queue fills and new Events are dropped, so a shorter
	// hold loses fewer of the Events that come after.
	DefaultMaxAttempts  = 6
	DefaultRetryBackoff = time.Second
	// DefaultFlushTimeout bounds how long Start keeps writing queued
	// Events after its context ended.
	DefaultFlushTimeout = 5 * time.Second
)

// maxRetryBackoff caps the doubling of RetryBackoff.
const maxRetryBackoff = 30 * time.Second

// writeTimeout bounds one request, so a hung connection counts as a
// failed attempt instead of stopping the writer.
const writeTimeout = 15 * time.Second

// Options configure a Broadcaster. Only Client is required; zero values
// take the defaults above.
type Options struct {
	// Client writes the Events.
	Client Client
	// Host is the Events' source.host and reportingInstance (client-go
	// sets both from one value); usually the pod or node name. Optional.
	Host string

	// BufferSize is how many Events wait for the writer before new ones
	// are dropped.
	BufferSize int
	// CacheSize bounds the recent Events remembered for aggregation and
	// the objects with a spam bucket; the least recently used go first.
	CacheSize int
	// AggregationWindow: a repeat of an Event within this time of its
	// last occurrence bumps that Event's count instead of creating one.
	AggregationWindow time.Duration
	// SimilarEvents is how many Events alike but for their message (the
	// same object, type and reason) are written one by one within the
	// AggregationWindow; from then on one Event whose message begins
	// "(combined from similar events): " stands for them.
	SimilarEvents int
	// SpamBurst is how many Events one source may record about one
	// object (and type) at once; SpamRefill is how long it takes to earn
	// one more.
	SpamBurst  int
	SpamRefill time.Duration
	// MaxAttempts is how many times a write that failed for a retriable
	// reason is tried in all; RetryBackoff is the first wait between
	// attempts, doubled after each.
	MaxAttempts  int
	RetryBackoff time.Duration
	// FlushTimeout bounds the writing of queued Events once Start's
	// context has ended.
	FlushTimeout time.Duration

	// Clock is the time source; nil is RealClock.
	Clock Clock
	// Logger receives the recorder's logs; nil is slog.Default().
	Logger *slog.Logger
	// Registerer, when set, gets the setpoint_events_dropped_total
	// counter.
	Registerer prometheus.Registerer
}

func (o Options) withDefaults() Options {
	setDefault(&o.BufferSize, DefaultBufferSize)
	setDefault(&o.CacheSize, DefaultCacheSize)
	setDefault(&o.AggregationWindow, DefaultAggregationWindow)
	setDefault(&o.SimilarEvents, DefaultSimilarEvents)
	setDefault(&o.SpamBurst, DefaultSpamBurst)
	setDefault(&o.SpamRefill, DefaultSpamRefill)
	setDefault(&o.MaxAttempts, DefaultMaxAttempts)
	setDefault(&o.RetryBackoff, DefaultRetryBackoff)
	setDefault(&o.FlushTimeout, DefaultFlushTimeout)
	if o.Clock == nil {
		o.Clock = RealClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

func setDefault[T int | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

func (o Options) validate() error {
	if o.Client == nil {
		return &ConfigError{"Client", "is required"}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"BufferSize", int64(o.BufferSize)},
		{"CacheSize", int64(o.CacheSize)},
		{"AggregationWindow", int64(o.AggregationWindow)},
		{"SimilarEvents", int64(o.SimilarEvents)},
		{"SpamBurst", int64(o.SpamBurst)},
		{"SpamRefill", int64(o.SpamRefill)},
		{"MaxAttempts", int64(o.MaxAttempts)},
		{"RetryBackoff", int64(o.RetryBackoff)},
		{"FlushTimeout", int64(o.FlushTimeout)},
	} {
		if f.v < 0 {
			return &ConfigError{f.name, "must not be negative"}
		}
	}
	return nil
}

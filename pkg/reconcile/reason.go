package reconcile

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// Trigger is what made a request due.
type Trigger string

// The triggers a controller records.
const (
	// TriggerCreate, TriggerUpdate and TriggerDelete are informer
	// events: the object itself or one mapped to it (an owned object, a
	// watched one) appeared, changed or went.
	TriggerCreate Trigger = "create"
	TriggerUpdate Trigger = "update"
	TriggerDelete Trigger = "delete"
	// TriggerGeneric is an event from a source other than an informer.
	TriggerGeneric Trigger = "generic"
	// TriggerRequeue is a previous reconcile's Result.RequeueAfter.
	TriggerRequeue Trigger = "requeue"
	// TriggerRetry is a previous reconcile's error.
	TriggerRetry Trigger = "retry"
	// TriggerResync is an informer's periodic resync.
	TriggerResync Trigger = "resync"
)

// Reason is one cause of a reconcile: a trigger and, for events, the
// object the event was about.
type Reason struct {
	Trigger Trigger
	// Kind, Namespace and Name identify the event's object; empty for
	// requeues and retries.
	Kind, Namespace, Name string
	// Count is how many causes this reason merges: five updates of one
	// object while the request waited are one reason with Count 5.
	Count int
}

func (r Reason) sameCause(o Reason) bool {
	return r.Trigger == o.Trigger && r.Kind == o.Kind && r.Namespace == o.Namespace && r.Name == o.Name
}

func (r Reason) String() string {
	var b strings.Builder
	b.WriteString(string(r.Trigger))
	if r.Kind != "" || r.Name != "" {
		b.WriteByte(' ')
		b.WriteString(r.Kind)
		b.WriteByte(' ')
		if r.Namespace != "" {
			b.WriteString(r.Namespace)
			b.WriteByte('/')
		}
		b.WriteString(r.Name)
	}
	if r.Count > 1 {
		fmt.Fprintf(&b, " x%d", r.Count)
	}
	return b.String()
}

// MaxReasons bounds the distinct reasons a Reasons keeps; causes beyond
// it are only counted, so a hot object cannot grow a request's memory.
const MaxReasons = 8

// Reasons is the merged set of causes of one reconcile, in the order they
// first occurred. The zero value is empty and ready to use.
type Reasons struct {
	items   []Reason
	dropped int
}

// Add merges r: a cause already held only increases its count.
func (rs *Reasons) Add(r Reason) {
	if r.Count < 1 {
		r.Count = 1
	}
	for i := range rs.items {
		if rs.items[i].sameCause(r) {
			rs.items[i].Count += r.Count
			return
		}
	}
	if len(rs.items) >= MaxReasons {
		rs.dropped += r.Count
		return
	}
	rs.items = append(rs.items, r)
}

// Merge adds every reason of o.
func (rs *Reasons) Merge(o Reasons) {
	for _, r := range o.items {
		rs.Add(r)
	}
	rs.dropped += o.dropped
}

// List returns the reasons held, oldest first.
func (rs Reasons) List() []Reason { return append([]Reason(nil), rs.items...) }

// Dropped is the number of causes beyond MaxReasons distinct ones.
func (rs Reasons) Dropped() int { return rs.dropped }

// Len is the number of distinct reasons held.
func (rs Reasons) Len() int { return len(rs.items) }

// Has reports whether any reason has trigger t.
func (rs Reasons) Has(t Trigger) bool {
	for _, r := range rs.items {
		if r.Trigger == t {
			return true
		}
	}
	return false
}

func (rs Reasons) String() string {
	parts := make([]string, 0, len(rs.items)+1)
	for _, r := range rs.items {
		parts = append(parts, r.String())
	}
	if rs.dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d more", rs.dropped))
	}
	return strings.Join(parts, ", ")
}

// LogValue logs the reasons as one string.
func (rs Reasons) LogValue() slog.Value { return slog.StringValue(rs.String()) }

type reasonsKey struct{}

// WithReasons returns ctx carrying rs.
func WithReasons(ctx context.Context, rs Reasons) context.Context {
	return context.WithValue(ctx, reasonsKey{}, rs)
}

// ReasonsFrom returns the reasons ctx carries: why this reconcile ran.
func ReasonsFrom(ctx context.Context) Reasons {
	rs, _ := ctx.Value(reasonsKey{}).(Reasons)
	return rs
}

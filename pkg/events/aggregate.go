package events

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// aggKey is what makes two Events the same Event: the same thing said
// about the same object by the same source. A struct, not a joined
// string, so no choice of names can make two keys collide.
type aggKey struct {
	component, host                        string
	apiVersion, kind, namespace, name, uid string
	typ, reason, message                   string
}

func aggKeyOf(ev *corev1.Event) aggKey {
	o := ev.InvolvedObject
	return aggKey{
		component: ev.Source.Component, host: ev.Source.Host,
		apiVersion: o.APIVersion, kind: o.Kind, namespace: o.Namespace, name: o.Name, uid: string(o.UID),
		typ: ev.Type, reason: ev.Reason, message: ev.Message,
	}
}

// aggregate is what the writer knows of an Event it wrote.
type aggregate struct {
	namespace, name string
	count           int32
	first, last     time.Time
}

// write sends p to the server once: a patch of the Event it repeats, or
// a create. It is the writer goroutine's only way to the server.
func (b *Broadcaster) write(ctx context.Context, p *pending) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	retry := p.tried
	p.tried = true

	agg, seen := b.recent.get(p.key)
	// The window runs from the last occurrence, as lastTimestamp shows
	// it, so a steady repeat keeps one Event alive.
	if seen && p.at.Sub(agg.last) < b.opts.AggregationWindow {
		count, last := agg.count+1, later(agg.last, p.at)
		err := b.patch(ctx, agg, count, last, p.event.Message)
		if client.IsNotFound(err) {
			// The Event expired (the server's TTL) or was deleted. It
			// comes back under its name with its history, as one object.
			ev := p.event.DeepCopy()
			ev.Name, ev.Count, ev.FirstTimestamp, ev.LastTimestamp = agg.name, count, metav1.NewTime(agg.first), metav1.NewTime(last)
			err = b.create(ctx, ev, retry)
		}
		if err != nil {
			return err
		}
		agg.count, agg.last = count, last
		return nil
	}

	if p.name == "" {
		p.name = b.eventName(p.event.InvolvedObject.Name, p.at)
	}
	ev := p.event.DeepCopy()
	ev.Name = p.name
	if err := b.create(ctx, ev, retry); err != nil {
		return err
	}
	b.recent.put(p.key, &aggregate{namespace: ev.Namespace, name: ev.Name, count: ev.Count, first: p.at, last: p.at})
	return nil
}

// create creates ev. On a retry, AlreadyExists means an earlier attempt
// got through and only its answer was lost.
func (b *Broadcaster) create(ctx context.Context, ev *corev1.Event, retry bool) error {
	err := b.opts.Client.Create(ctx, ev)
	if retry && client.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// countPatch is the merge patch of a repeat.
type countPatch struct {
	Count         int32       `json:"count"`
	LastTimestamp metav1.Time `json:"lastTimestamp"`
	// Message is the latest one's, as client-go patches it: a combined
	// Event shows the newest of the Events it stands for.
	Message string `json:"message"`
}

func (b *Broadcaster) patch(ctx context.Context, agg *aggregate, count int32, last time.Time, message string) error {
	// A count, not an increment: a patch retried after a lost answer
	// sets the same value again.
	data, err := json.Marshal(countPatch{Count: count, LastTimestamp: metav1.NewTime(last), Message: message})
	if err != nil {
		return fmt.Errorf("events: encoding the count patch: %w", err)
	}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: agg.namespace, Name: agg.name}}
	return b.opts.Client.Patch(ctx, ev, types.MergePatchType, data)
}

// eventName names a new Event after its object and time, as client-go
// does, so kubectl users see familiar names. The time is forced to
// increase: two Events in one clock tick (or on a test's stopped clock)
// still get two names.
func (b *Broadcaster) eventName(object string, at time.Time) string {
	n := max(at.UnixNano(), b.lastNanos+1)
	b.lastNanos = n
	name := fmt.Sprintf("%s.%x", object, n)
	if len(validation.NameIsDNSSubdomain(name, false)) == 0 {
		return name
	}
	// Some kinds allow names an Event may not have (RBAC's colons, or
	// close to 253 characters already).
	var r [16]byte
	_, _ = rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

package controller

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// Source feeds a controller's queue. For, Owns and Watches are sources
// of one kind's informer events; any other cause of reconciles (a
// channel, a timer, an external system's notifications) is a Source the
// user writes.
type Source interface {
	// Start sets the source up to add requests to q until ctx ends, and
	// returns without waiting for that: the controller calls it on each
	// of its runs, before its workers start, with a ctx that ends with
	// the run. An error ends the run.
	Start(ctx context.Context, q Queue) error
}

// Queue is a controller's queue as its sources see it.
type Queue interface {
	// Add asks for a reconcile of req; reason is one of the reasons the
	// reconcile reports (reconcile.ReasonsFrom), usually with Trigger
	// reconcile.TriggerGeneric for a user's source. Adds of a request
	// already waiting merge into one reconcile.
	Add(req reconcile.Request, reason reconcile.Reason)
}

// SourceFunc is a Source written as a function.
type SourceFunc func(ctx context.Context, q Queue) error

// Start calls f.
func (f SourceFunc) Start(ctx context.Context, q Queue) error { return f(ctx, q) }

// informerSource is a source of informer events, which the controller
// joins to its cluster's informers: For, Owns and Watches.
type informerSource interface {
	Source
	// kind resolves the source's kind.
	kind(c *Controller) (schema.GroupVersionKind, error)
	isPrimary() bool
}

// SourceOption adjusts a source.
type SourceOption func(*sourceConfig)

type sourceConfig struct {
	preds []predicate.Predicate
	gvk   schema.GroupVersionKind
}

// WithPredicates drops the events any of ps drops.
func WithPredicates(ps ...predicate.Predicate) SourceOption {
	return func(s *sourceConfig) { s.preds = append(s.preds, ps...) }
}

// WithKind names the kind of a source whose type does not: one of
// *unstructured.Unstructured or *metav1.PartialObjectMetadata (a
// metadata-only informer).
func WithKind(gvk schema.GroupVersionKind) SourceOption {
	return func(s *sourceConfig) { s.gvk = gvk }
}

// For is the controller's primary kind: each event of a T reconciles
// that object. A controller has exactly one For.
func For[T client.Object](opts ...SourceOption) Source {
	return newSource[T](roleFor, nil, opts)
}

// Owns reconciles the owner of each T whose controller ownerReference
// points at an object of the For kind, in the T's namespace: the
// objects a reconciler creates for its primary.
func Owns[T client.Object](opts ...SourceOption) Source {
	return newSource[T](roleOwns, nil, opts)
}

// Watches maps each event of a T to the requests fn returns: objects
// related to the primary some other way than ownership. fn must not
// block or modify obj.
func Watches[T client.Object](fn func(ctx context.Context, obj T) []reconcile.Request, opts ...SourceOption) Source {
	return newSource(roleWatches, fn, opts)
}

type role int

const (
	roleFor role = iota
	roleOwns
	roleWatches
)

type kindSource[T client.Object] struct {
	role role
	fn   func(ctx context.Context, obj T) []reconcile.Request
	cfg  sourceConfig
}

func newSource[T client.Object](r role, fn func(context.Context, T) []reconcile.Request, opts []SourceOption) *kindSource[T] {
	s := &kindSource[T]{role: r, fn: fn}
	for _, o := range opts {
		o(&s.cfg)
	}
	return s
}

func (s *kindSource[T]) isPrimary() bool { return s.role == roleFor }

func (s *kindSource[T]) metadataOnly() bool {
	var zero T
	_, ok := any(zero).(*metav1.PartialObjectMetadata)
	return ok
}

func (s *kindSource[T]) kind(c *Controller) (schema.GroupVersionKind, error) {
	if !s.cfg.gvk.Empty() {
		return s.cfg.gvk, nil
	}
	var zero T
	switch any(zero).(type) {
	case *unstructured.Unstructured, *metav1.PartialObjectMetadata:
		return schema.GroupVersionKind{}, fmt.Errorf("controller %s: a source of %T needs WithKind", c.name, zero)
	}
	t := reflect.TypeOf(zero)
	if t == nil || t.Kind() != reflect.Pointer {
		return schema.GroupVersionKind{}, fmt.Errorf("controller %s: source type %v is not a pointer to a struct", c.name, t)
	}
	obj, ok := reflect.New(t.Elem()).Interface().(client.Object)
	if !ok {
		return schema.GroupVersionKind{}, fmt.Errorf("controller %s: %v is not an object", c.name, t)
	}
	gvks, _, err := c.cluster.Scheme().ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("controller %s: %w", c.name, err)
	}
	return gvks[0], nil
}

// Start adds a handler for the source's events to the informers of its
// kind, which the controller waits for before its workers start. Only
// the controller's own queue gives access to them.
func (s *kindSource[T]) Start(ctx context.Context, q Queue) error {
	sq, ok := q.(*sourceQueue)
	if !ok {
		return errors.New("controller: For, Owns and Watches start only in their controller")
	}
	gvk, err := s.kind(sq.c)
	if err != nil {
		return err
	}
	return sq.watch(ctx, gvk, s.metadataOnly(), s.handler(sq.c, gvk, sq.primary))
}

func (s *kindSource[T]) handler(c *Controller, gvk, primary schema.GroupVersionKind) cache.Handler[cache.Object] {
	emit := func(trigger reconcile.Trigger, objs ...cache.Object) {
		seen := map[reconcile.Request]bool{}
		for _, o := range objs {
			t, ok := o.(T)
			if !ok {
				continue
			}
			reason := reconcile.Reason{Trigger: trigger, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()}
			for _, req := range s.requests(c, t, primary) {
				if !seen[req] {
					seen[req] = true
					c.enqueue(req, reason)
				}
			}
		}
	}
	pass := func(f func(p predicate.Predicate) bool) bool {
		for _, p := range s.cfg.preds {
			if !f(p) {
				return false
			}
		}
		return true
	}
	return cache.HandlerFuncs[cache.Object]{
		AddFunc: func(obj cache.Object, _ bool) {
			if pass(func(p predicate.Predicate) bool { return p.Create(obj) }) {
				emit(reconcile.TriggerCreate, obj)
			}
		},
		UpdateFunc: func(old, new cache.Object) {
			if !pass(func(p predicate.Predicate) bool { return p.Update(old, new) }) {
				return
			}
			if old == new {
				emit(reconcile.TriggerResync, new)
				return
			}
			// An owned object can change owners: both hear of it.
			emit(reconcile.TriggerUpdate, new, old)
		},
		DeleteFunc: func(obj cache.Object) {
			if pass(func(p predicate.Predicate) bool { return p.Delete(obj) }) {
				emit(reconcile.TriggerDelete, obj)
			}
		},
	}
}

func (s *kindSource[T]) requests(c *Controller, obj T, primary schema.GroupVersionKind) []reconcile.Request {
	switch s.role {
	case roleFor:
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}}}
	case roleOwns:
		ref := metav1.GetControllerOfNoCopy(obj)
		if ref == nil {
			return nil
		}
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || gv.Group != primary.Group || ref.Kind != primary.Kind {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}}}
	}
	return s.fn(c.runContext(), obj)
}

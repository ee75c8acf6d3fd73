// Package predicate filters the informer events that reach a
// controller's queue. A predicate sees each event before the controller
// turns it into a request: returning false drops the event, so an update
// that changed nothing a reconciler reads (a status write, a resync)
// costs no reconcile.
package predicate

import (
	"maps"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// Predicate decides which events pass. Objects are the cache's own:
// read them, never modify them.
type Predicate interface {
	Create(obj client.Object) bool
	Update(old, new client.Object) bool
	Delete(obj client.Object) bool
}

// Funcs is a Predicate for objects of type T from functions; a nil
// function passes every event, and objects of another type pass none.
type Funcs[T client.Object] struct {
	CreateFunc func(obj T) bool
	UpdateFunc func(old, new T) bool
	DeleteFunc func(obj T) bool
}

// Create calls CreateFunc.
func (f Funcs[T]) Create(obj client.Object) bool {
	t, ok := obj.(T)
	return ok && (f.CreateFunc == nil || f.CreateFunc(t))
}

// Update calls UpdateFunc.
func (f Funcs[T]) Update(old, new client.Object) bool {
	o, ok1 := old.(T)
	n, ok2 := new.(T)
	return ok1 && ok2 && (f.UpdateFunc == nil || f.UpdateFunc(o, n))
}

// Delete calls DeleteFunc.
func (f Funcs[T]) Delete(obj client.Object) bool {
	t, ok := obj.(T)
	return ok && (f.DeleteFunc == nil || f.DeleteFunc(t))
}

// onUpdate is a predicate that judges updates only.
type onUpdate func(old, new client.Object) bool

func (onUpdate) Create(client.Object) bool            { return true }
func (f onUpdate) Update(old, new client.Object) bool { return f(old, new) }
func (onUpdate) Delete(client.Object) bool            { return true }

// GenerationChanged passes updates that changed metadata.generation,
// which the server bumps for changes to spec (not status or metadata).
// Resyncs do not pass. Kinds without generation (ConfigMaps, say) never
// pass an update: use ResourceVersionChanged or LabelsChanged for them.
func GenerationChanged() Predicate {
	return onUpdate(func(old, new client.Object) bool { return old.GetGeneration() != new.GetGeneration() })
}

// ResourceVersionChanged passes every real update and drops resyncs.
func ResourceVersionChanged() Predicate {
	return onUpdate(func(old, new client.Object) bool { return old.GetResourceVersion() != new.GetResourceVersion() })
}

// LabelsChanged passes updates that changed the labels.
func LabelsChanged() Predicate {
	return onUpdate(func(old, new client.Object) bool { return !maps.Equal(old.GetLabels(), new.GetLabels()) })
}

// AnnotationsChanged passes updates that changed the annotations.
func AnnotationsChanged() Predicate {
	return onUpdate(func(old, new client.Object) bool { return !maps.Equal(old.GetAnnotations(), new.GetAnnotations()) })
}

// Labels passes events of objects whose labels match sel; an update
// passes when either state matches, so an object that stops matching is
// still seen leaving.
func Labels(sel labels.Selector) Predicate { return labelPredicate{sel} }

type labelPredicate struct{ sel labels.Selector }

func (p labelPredicate) match(o client.Object) bool  { return p.sel.Matches(labels.Set(o.GetLabels())) }
func (p labelPredicate) Create(o client.Object) bool { return p.match(o) }
func (p labelPredicate) Update(old, new client.Object) bool {
	return p.match(old) || p.match(new)
}
func (p labelPredicate) Delete(o client.Object) bool { return p.match(o) }

// And passes what every one of ps passes.
func And(ps ...Predicate) Predicate { return all(ps) }

type all []Predicate

func (a all) Create(o client.Object) bool {
	for _, p := range a {
		if !p.Create(o) {
			return false
		}
	}
	return true
}

func (a all) Update(old, new client.Object) bool {
	for _, p := range a {
		if !p.Update(old, new) {
			return false
		}
	}
	return true
}

func (a all) Delete(o client.Object) bool {
	for _, p := range a {
		if !p.Delete(o) {
			return false
		}
	}
	return true
}

// Or passes what any one of ps passes.
func Or(ps ...Predicate) Predicate { return anyOf(ps) }

type anyOf []Predicate

func (a anyOf) Create(o client.Object) bool {
	for _, p := range a {
		if p.Create(o) {
			return true
		}
	}
	return false
}

func (a anyOf) Update(old, new client.Object) bool {
	for _, p := range a {
		if p.Update(old, new) {
			return true
		}
	}
	return false
}

func (a anyOf) Delete(o client.Object) bool {
	for _, p := range a {
		if p.Delete(o) {
			return true
		}
	}
	return false
}

// Not passes what p drops.
func Not(p Predicate) Predicate { return not{p} }

type not struct{ p Predicate }

func (n not) Create(o client.Object) bool        { return !n.p.Create(o) }
func (n not) Update(old, new client.Object) bool { return !n.p.Update(old, new) }
func (n not) Delete(o client.Object) bool        { return !n.p.Delete(o) }

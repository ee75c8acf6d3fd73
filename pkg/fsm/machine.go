package fsm

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/finalizer"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// Client is what a Machine reads and writes with; client.Interface has
// it. Reads may come from a cache: a stale read costs a Conflict on the
// write, and a retry.
type Client interface {
	Get(ctx context.Context, key types.NamespacedName, obj client.Object) error
	UpdateStatus(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
	finalizer.Patcher
}

// Config describes a Machine.
type Config[T Object] struct {
	Client Client
	// States are the graph walked while the object lives; walks start
	// at the first. Ready's reason comes from the first in this order
	// whose condition is not True, so list them in the order a reader
	// of the status expects.
	States []State[T]
	// DeletionStates, if any, are walked once the object is being
	// deleted, and Finalizer holds it until one of them returns Done.
	// State names and condition types are unique across both lists.
	DeletionStates []State[T]
	// Finalizer is the finalizer's name ("example.com/cleanup"); needed
	// with DeletionStates, refused without.
	Finalizer string
	// MaxSteps bounds the states one walk runs; 0 is twice the number
	// of states in the graph walked.
	MaxSteps int
	// NewObject returns an empty T to read into; nil allocates what T
	// points to.
	NewObject func() T
	// Logger receives a debug record per state run; nil is the
	// reconcile's logger (reconcile.Logger).
	Logger *slog.Logger
}

// Machine is a reconcile.Reconciler walking a graph of states for
// objects of type T.
type Machine[T Object] struct {
	client    Client
	apply     *graph[T]
	deletion  *graph[T]
	finalizer string
	newObject func() T
	log       *slog.Logger
}

var _ reconcile.Reconciler = (*Machine[Object])(nil)

// New checks cfg and builds its Machine. Errors wrap ErrInvalidMachine
// (or finalizer.ErrInvalidName).
func New[T Object](cfg Config[T]) (*Machine[T], error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("%w: no client", ErrInvalidMachine)
	}
	m := &Machine[T]{client: cfg.Client, finalizer: cfg.Finalizer, newObject: cfg.NewObject, log: cfg.Logger}
	seen := map[string]string{}
	var err error
	if m.apply, err = newGraph("apply", cfg.States, cfg.MaxSteps, seen); err != nil {
		return nil, err
	}
	switch {
	case len(cfg.DeletionStates) > 0:
		if err := finalizer.ValidateName(cfg.Finalizer); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidMachine, err)
		}
		if m.deletion, err = newGraph("deletion", cfg.DeletionStates, cfg.MaxSteps, seen); err != nil {
			return nil, err
		}
	case cfg.Finalizer != "":
		// A finalizer nothing would ever remove blocks deletion forever.
		return nil, fmt.Errorf("%w: a finalizer needs deletion states", ErrInvalidMachine)
	}
	if m.newObject == nil {
		t := reflect.TypeFor[T]()
		if t.Kind() != reflect.Pointer {
			return nil, fmt.Errorf("%w: %v is not a pointer; set NewObject", ErrInvalidMachine, t)
		}
		m.newObject = func() T { return reflect.New(t.Elem()).Interface().(T) }
	}
	return m, nil
}

// Transitions lists the declared edges, apply states first, each state's
// in the order it declared them.
func (m *Machine[T]) Transitions() []Transition {
	out := m.apply.transitions()
	if m.deletion != nil {
		out = append(out, m.deletion.transitions()...)
	}
	return out
}

// Reconcile reads the object req names and walks the apply or the
// deletion states for it. An object that is gone needs nothing.
func (m *Machine[T]) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj := m.newObject()
	if err := m.client.Get(ctx, req.NamespacedName, obj); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("fsm: reading %s: %w", req.NamespacedName, err)
	}
	log := m.log
	if log == nil {
		log = reconcile.Logger(ctx)
	}
	log = log.With("object", req.NamespacedName.String())
	if obj.GetDeletionTimestamp() == nil {
		if m.deletion != nil {
			// Before the first state acts, so whatever the states do is
			// cleaned up.
			if _, err := finalizer.Add(ctx, m.client, obj, m.finalizer); err != nil {
				return reconcile.Result{}, err
			}
		}
		w, err := m.run(ctx, m.apply, obj, false, log)
		return w.result, err
	}
	// Without our finalizer no state ever ran for this object, or the
	// deletion walk already finished; another finalizer holds it.
	if m.deletion == nil || !finalizer.Has(obj, m.finalizer) {
		return reconcile.Result{}, nil
	}
	w, err := m.run(ctx, m.deletion, obj, true, log)
	if err != nil || !w.finished {
		return w.result, err
	}
	if _, err := finalizer.Remove(ctx, m.client, obj, m.finalizer); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// run walks g on obj, derives Ready, and writes the status if a
// condition changed. A failed status write is returned instead of the
// walk's error: a Conflict must be retried, even after a walk that
// ended in a terminal error.
func (m *Machine[T]) run(ctx context.Context, g *graph[T], obj T, deleting bool, log *slog.Logger) (walkResult, error) {
	before := slices.Clone(obj.GetConditions())
	w := g.walk(ctx, obj, log)
	conds := obj.GetConditions()
	ready := deriveReady(conds, g.conditionTypes(), obj.GetGeneration())
	if deleting {
		if ready.Status == metav1.ConditionTrue {
			ready.Message = "every deletion state is done"
		}
		ready.Status, ready.Reason = metav1.ConditionFalse, ReasonDeleting
	}
	if w.broken != "" {
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, w.broken, w.err.Error()
	}
	meta.SetStatusCondition(&conds, ready)
	obj.SetConditions(conds)
	log.DebugContext(ctx, "walk ended", "finished", w.finished, "requeueAfter", w.result.RequeueAfter, "error", w.err, "ready", ready.Status, "reason", ready.Reason)
	if conditionsEqual(before, conds) {
		return w, w.err
	}
	if err := m.client.UpdateStatus(ctx, obj); err != nil {
		if w.err != nil {
			return w, fmt.Errorf("fsm: writing status of %s (after: %v): %w", obj.GetName(), w.err, err)
		}
		return w, fmt.Errorf("fsm: writing status of %s: %w", obj.GetName(), err)
	}
	return w, w.err
}

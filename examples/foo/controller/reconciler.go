package controller

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	foov1 "github.com/setpoint-dev/setpoint/examples/foo/api/v1"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/finalizer"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// Finalizer holds a Foo until its ConfigMap is deleted.
const Finalizer = "foo.example.com/cleanup"

// The Ready condition and its reasons.
const (
	ConditionReady  = "Ready"
	ReasonFooIsBar  = "FooIsBar"
	ReasonFooNotBar = "FooNotBar"
)

// WantedValue is the spec.value that makes a Foo Ready.
const WantedValue = "bar"

// DefaultRequeueAfter is how soon a Foo that is not Ready is looked at
// again when Reconciler.RequeueAfter is not set.
const DefaultRequeueAfter = 30 * time.Second

// Reconciler brings one Foo in line with its spec.
type Reconciler struct {
	// Client reads (from a cache, in a manager) and writes Foos and
	// ConfigMaps.
	Client client.Interface
	// RequeueAfter is how soon a Foo that is not Ready is checked
	// again, although nothing about it changed: a stand-in for
	// watching something the operator has no events for.
	RequeueAfter time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Reconcile reads the Foo req names and routes it through the
// finalizer: apply while it lives, clean up once it is being deleted.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	foo := &foov1.Foo{}
	if err := r.Client.Get(ctx, req.NamespacedName, foo); err != nil {
		if client.IsNotFound(err) {
			// Gone: the finalizer already saw to the ConfigMap.
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	return finalizer.Reconcile(ctx, r.Client, foo, Finalizer, finalizer.Handler[*foov1.Foo]{
		Apply:   r.apply,
		Cleanup: r.cleanup,
	})
}

// apply mirrors the value into the ConfigMap, then sets Ready.
func (r *Reconciler) apply(ctx context.Context, foo *foov1.Foo) (reconcile.Result, error) {
	if err := ensureConfigMap(ctx, r.Client, foo); err != nil {
		return reconcile.Result{}, err
	}
	ready := metav1.Condition{
		Type:               ConditionReady,
		Status:             metav1.ConditionTrue,
		Reason:             ReasonFooIsBar,
		Message:            fmt.Sprintf("spec.value is %q", WantedValue),
		ObservedGeneration: foo.Generation,
	}
	var res reconcile.Result
	if foo.Spec.Value != WantedValue {
		ready.Status, ready.Reason = metav1.ConditionUnknown, ReasonFooNotBar
		ready.Message = fmt.Sprintf("spec.value is %q, not %q", foo.Spec.Value, WantedValue)
		res.RequeueAfter = r.requeueAfter()
	}
	if meta.SetStatusCondition(&foo.Status.Conditions, ready) {
		if err := r.Client.UpdateStatus(ctx, foo); err != nil {
			return reconcile.Result{}, err
		}
		r.log().InfoContext(ctx, "foo status changed", "namespace", foo.Namespace, "name", foo.Name,
			"ready", ready.Status, "reason", ready.Reason, "generation", foo.Generation)
	}
	return res, nil
}

// cleanup deletes the ConfigMap; the finalizer goes once it returns
// without error.
func (r *Reconciler) cleanup(ctx context.Context, foo *foov1.Foo) (reconcile.Result, error) {
	deleted, err := deleteConfigMap(ctx, r.Client, foo)
	if err != nil {
		return reconcile.Result{}, err
	}
	r.log().InfoContext(ctx, "foo cleaned up", "namespace", foo.Namespace, "name", foo.Name,
		"configMap", ConfigMapName(foo), "configMapDeleted", deleted)
	return reconcile.Result{}, nil
}

func (r *Reconciler) requeueAfter() time.Duration {
	if r.RequeueAfter > 0 {
		return r.RequeueAfter
	}
	return DefaultRequeueAfter
}

func (r *Reconciler) log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

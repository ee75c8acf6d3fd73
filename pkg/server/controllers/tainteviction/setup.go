package tainteviction

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// ControllerName names the controller in logs, metrics and Events.
const ControllerName = "taint-eviction-controller"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time; nil is the real clock.
	Clock clock.Clock
}

// Setup adds the taint eviction controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	r := &reconciler{cache: m.Client(), api: m.API(), clock: opts.Clock, recorder: m.EventRecorder(ControllerName)}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: 4, Clock: opts.Clock},
		controller.For[*corev1.Pod](),
		controller.Watches[*corev1.Node](func(ctx context.Context, n *corev1.Node) []reconcile.Request {
			return podsOn(ctx, m.Client(), n)
		}),
	)
	return err
}

// podsOn are the pods of a node with NoExecute taints; a node without
// any needs no pod looked at (a pending eviction rechecks the taints
// when it comes due).
func podsOn(ctx context.Context, c client.Reader, n *corev1.Node) []reconcile.Request {
	tainted := false
	for _, t := range n.Spec.Taints {
		tainted = tainted || t.Effect == corev1.TaintEffectNoExecute
	}
	if !tainted {
		return nil
	}
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, p := range pods.Items {
		if p.Spec.NodeName == n.Name {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}})
		}
	}
	return out
}

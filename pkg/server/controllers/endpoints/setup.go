//lint:file-ignore SA1019 core/v1 Endpoints are deprecated but kept up to date, as kube 1.33 keeps them

package endpoints

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "endpointslice"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Workers is how many Services are reconciled at once; 0 means 4.
	Workers int
}

// Setup adds the endpoints controller to m. It reads Services, Pods and
// the slices and Endpoints it writes from m's informers.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	r := &reconciler{cache: m.Client(), api: m.API()}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: opts.Workers},
		controller.For[*corev1.Service](),
		controller.Watches[*corev1.Pod](func(ctx context.Context, pod *corev1.Pod) []reconcile.Request {
			return servicesOf(ctx, m.Client(), pod)
		}),
		controller.Owns[*discoveryv1.EndpointSlice](),
		controller.Watches[*corev1.Endpoints](func(_ context.Context, ep *corev1.Endpoints) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ep.Namespace, Name: ep.Name}}}
		}),
	)
	return err
}

// servicesOf are the Services a change of pod may concern: those whose
// selector picks it now, and those whose slices list it (a pod that left
// a selector must leave their endpoints).
func servicesOf(ctx context.Context, c client.Reader, pod *corev1.Pod) []reconcile.Request {
	var out []reconcile.Request
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: pod.Namespace, Name: name}})
		}
	}
	svcs := &corev1.ServiceList{}
	if err := c.List(ctx, svcs, client.InNamespace(pod.Namespace)); err == nil {
		for _, s := range svcs.Items {
			if s.Spec.Selector != nil && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(pod.Labels)) {
				add(s.Name)
			}
		}
	}
	slices := &discoveryv1.EndpointSliceList{}
	if err := c.List(ctx, slices, client.InNamespace(pod.Namespace), client.MatchingLabels{managedByLabel: managedBy}); err == nil {
		for _, s := range slices.Items {
			for _, ep := range s.Endpoints {
				if ep.TargetRef != nil && ep.TargetRef.Name == pod.Name {
					add(s.Labels[serviceNameLabel])
				}
			}
		}
	}
	return out
}

package deployment

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/listers"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
)

// ControllerName is the source of the controller's Events, as in kube.
const ControllerName = "deployment-controller"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time for conditions and progress deadlines; nil
	// is the real clock.
	Clock clock.Clock
	// Workers is how many Deployments are synced at once; 0 means 5,
	// kube-controller-manager's --concurrent-deployment-syncs.
	Workers int
}

// Setup adds the Deployment controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	r := &reconciler{cache: m.Client(), api: m.API(), events: m.EventRecorder(ControllerName), clock: opts.Clock,
		pods: func(ctx context.Context, ns string, sel labels.Selector) ([]*corev1.Pod, error) {
			return listers.List[*corev1.Pod](ctx, m, ns, sel)
		},
		replicaSets: func(ctx context.Context, ns string) ([]*appsv1.ReplicaSet, error) {
			return listers.List[*appsv1.ReplicaSet](ctx, m, ns, nil)
		}}
	c := m.Client()
	_, err := m.NewController(r, controller.Options{Name: "deployment", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*appsv1.Deployment](),
		controller.Watches[*appsv1.ReplicaSet](func(ctx context.Context, rs *appsv1.ReplicaSet) []reconcile.Request {
			return deploymentsOf(ctx, m, rs)
		}),
		controller.Watches[*corev1.Pod](func(ctx context.Context, pod *corev1.Pod) []reconcile.Request {
			return recreateOf(ctx, c, pod)
		}, controller.WithPredicates(podGone)),
	)
	return err
}

// deploymentsOf are the Deployments a change to rs concerns: its
// controller if that is a Deployment, or, for an orphan, every
// Deployment of its namespace that selects it.
func deploymentsOf(ctx context.Context, m *manager.Manager, rs *appsv1.ReplicaSet) []reconcile.Request {
	if metav1.GetControllerOfNoCopy(rs) == nil && len(rs.Labels) == 0 {
		// An orphan without labels: kube asks no Deployment about it.
		return nil
	}
	return ownership.OwnersOf(ctx, rs, appsv1.SchemeGroupVersion.String(), "Deployment", func(ctx context.Context, ns string) ([]ownership.Candidate, error) {
		ds, err := listers.List[*appsv1.Deployment](ctx, m, ns, nil)
		return ownership.CandidatesOf(ds, func(d *appsv1.Deployment) *metav1.LabelSelector { return d.Spec.Selector }), err
	})
}

// podGone passes the pod changes a Recreate waits for: a pod deleted, or
// finished. kube-controller-manager hears only deletes; a pod that
// finishes shows in its ReplicaSet's status too, but later.
var podGone = predicate.Funcs[*corev1.Pod]{
	CreateFunc: func(*corev1.Pod) bool { return false },
	UpdateFunc: func(old, new *corev1.Pod) bool { return !finished(old) && finished(new) },
}

func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// recreateOf is the Deployment a pod change concerns: only a Recreate
// waits on pods (for the old ones to be gone), so only a Recreate
// Deployment owning the pod's ReplicaSet hears of it.
func recreateOf(ctx context.Context, c client.Reader, pod *corev1.Pod) []reconcile.Request {
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	rs := &appsv1.ReplicaSet{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: pod.Namespace, Name: ref.Name}, rs); err != nil || rs.UID != ref.UID {
		return nil
	}
	dref := metav1.GetControllerOfNoCopy(rs)
	if dref == nil || dref.Kind != "Deployment" {
		return nil
	}
	d := &appsv1.Deployment{}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: dref.Name}
	if err := c.Get(ctx, key, d); err != nil || d.UID != dref.UID || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		return nil
	}
	return []reconcile.Request{{NamespacedName: key}}
}

package pvcprotection

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Workers is how many claims are handled at once; 0 means 1, as
	// kube-controller-manager runs this controller.
	Workers int
}

// Setup adds the PVC protection controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	r := &reconciler{cache: m.Client(), live: m.APIReader(), api: m.API()}
	_, err := m.NewController(r, controller.Options{Name: "pvcprotection", Workers: opts.Workers},
		controller.For[*corev1.PersistentVolumeClaim](),
		// A pod that goes, ends or was never scheduled may free the
		// claims it names.
		controller.Watches[*corev1.Pod](func(_ context.Context, pod *corev1.Pod) []reconcile.Request {
			var out []reconcile.Request
			for _, name := range claimsOf(pod) {
				out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: pod.Namespace, Name: name}})
			}
			return out
		}),
	)
	return err
}

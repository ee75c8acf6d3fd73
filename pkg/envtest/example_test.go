package envtest_test

import (
	"context"
	"fmt"
	"log"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// An environment with a folder's CRDs installed and a manager running a
// controller. In a test, envtest.Start(t, ...) and env.StartManager(t,
// ...) do the same and stop everything when the test ends; New and
// RunManager are for code without a *testing.T, as this example.
func Example() {
	ctx := context.Background()
	env, err := envtest.New(ctx, envtest.WithCRDs("testdata/crds"))
	if err != nil {
		log.Fatal(err)
	}
	defer env.Stop()

	// The CRDs are served once New returns.
	w := &unstructured.Unstructured{}
	w.SetAPIVersion("example.com/v1")
	w.SetKind("Widget")
	w.SetNamespace("default")
	w.SetName("w1")
	if err := env.Client().Create(ctx, w); err != nil {
		log.Fatal(err)
	}
	fmt.Println("created widget", w.GetName())

	seen := make(chan string, 1)
	_, stop, err := env.RunManager(func(m *manager.Manager) error {
		r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			// As in Kubernetes, every namespace also holds the CA bundle
			// kube-root-ca.crt: only the ConfigMap created below counts.
			if req.Name != "settings" {
				return reconcile.Result{}, nil
			}
			select {
			case seen <- "reconciled " + req.String():
			default:
			}
			return reconcile.Result{}, nil
		})
		_, err := m.NewController(r, controller.Options{Name: "settings"}, controller.For[*corev1.ConfigMap]())
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"}}
	if err := env.Client().Create(ctx, cm); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-seen)
	if err := stop(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// created widget w1
	// reconciled default/settings
}

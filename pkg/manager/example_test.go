package manager_test

import (
	"context"
	"fmt"
	"log"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// An operator: a manager runs a controller that reconciles each
// ConfigMap it hears of. A real operator's main passes
// manager.SignalContext() to Start and a kubeconfig's rest.Config to New.
func ExampleManager() {
	srv, stop, err := apiservertest.Run(context.Background(), apiservertest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	m, err := manager.New(srv.Config, manager.Options{})
	if err != nil {
		log.Fatal(err)
	}
	seen := make(chan string, 1)
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		var cm corev1.ConfigMap
		if err := m.Client().Get(ctx, req.NamespacedName, &cm); err != nil {
			return reconcile.Result{}, err
		}
		select {
		case seen <- fmt.Sprintf("reconciled %s: %s", req, cm.Data["color"]):
		case <-ctx.Done():
		}
		return reconcile.Result{}, nil
	})
	if _, err := m.NewController(r, controller.Options{Name: "colors"}, controller.For[*corev1.ConfigMap]()); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"},
		Data:       map[string]string{"color": "blue"},
	}
	if err := m.Client().Create(ctx, cm); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-seen)

	cancel() // stops the controllers, then the informers
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	// Output:
	// reconciled default/settings: blue
}

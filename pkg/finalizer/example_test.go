package finalizer_test

import (
	"context"
	"fmt"
	"log"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/finalizer"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// A reconciler's body: Reconcile puts the finalizer on before Apply
// runs, so the deletion waits for Cleanup. Here the two reconciles a
// controller would run are called by hand.
func ExampleReconcile() {
	ctx := context.Background()
	srv, stop, err := apiservertest.Run(ctx, apiservertest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	c, err := client.New(srv.Config, client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	const name = "example.com/cleanup"
	h := finalizer.Handler[*corev1.ConfigMap]{
		Apply: func(ctx context.Context, cm *corev1.ConfigMap) (reconcile.Result, error) {
			fmt.Println("apply; finalizers:", cm.Finalizers)
			return reconcile.Result{}, nil
		},
		Cleanup: func(ctx context.Context, cm *corev1.ConfigMap) (reconcile.Result, error) {
			fmt.Println("cleanup of", cm.Name)
			return reconcile.Result{}, nil
		},
	}
	key := types.NamespacedName{Namespace: "default", Name: "settings"}
	reconcileOnce := func() {
		var cm corev1.ConfigMap
		if err := c.Get(ctx, key, &cm); err != nil {
			fmt.Println("get:", client.ReasonForError(err))
			return
		}
		if _, err := finalizer.Reconcile(ctx, c, &cm, name, h); err != nil {
			log.Fatal(err)
		}
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	if err := c.Create(ctx, cm); err != nil {
		log.Fatal(err)
	}
	reconcileOnce()
	// The finalizer holds the object: deleting it only marks it.
	if err := c.Delete(ctx, cm); err != nil {
		log.Fatal(err)
	}
	reconcileOnce()
	reconcileOnce()
	// Output:
	// apply; finalizers: [example.com/cleanup]
	// cleanup of settings
	// get: NotFound
}

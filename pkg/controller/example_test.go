package controller_test

import (
	"context"
	"fmt"
	"log"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// A controller fed by a user's source as well as by its For kind: here
// a channel of names, as a webhook from an external system would send.
// The reconcile's reasons say which source asked for it.
func ExampleSourceFunc() {
	srv, stop, err := apiservertest.Run(context.Background(), apiservertest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	m, err := manager.New(srv.Config, manager.Options{})
	if err != nil {
		log.Fatal(err)
	}

	changed := make(chan types.NamespacedName)
	webhook := controller.SourceFunc(func(ctx context.Context, q controller.Queue) error {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case name := <-changed:
					q.Add(reconcile.Request{NamespacedName: name},
						reconcile.Reason{Trigger: reconcile.TriggerGeneric, Kind: "Webhook", Name: name.Name})
				}
			}
		}()
		return nil
	})
	seen := make(chan string, 1)
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		select {
		case seen <- fmt.Sprintf("reconcile %s because: %s", req, reconcile.ReasonsFrom(ctx)):
		case <-ctx.Done():
		}
		return reconcile.Result{}, nil
	})
	_, err = m.NewController(r, controller.Options{Name: "mirror"}, controller.For[*corev1.ConfigMap](), webhook)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()

	changed <- types.NamespacedName{Namespace: "default", Name: "upstream"}
	fmt.Println(<-seen)

	cancel()
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	// Output:
	// reconcile default/upstream because: generic Webhook upstream
}

// A controller's sources: For its own kind, Owns for the objects it
// creates. Each ConfigMap gets a Secret it controls; an event of that
// Secret reconciles its ConfigMap.
func ExampleOwns() {
	srv, stop, err := apiservertest.Run(context.Background(), apiservertest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	m, err := manager.New(srv.Config, manager.Options{})
	if err != nil {
		log.Fatal(err)
	}

	seen := make(chan string, 2)
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		select {
		case seen <- fmt.Sprintf("reconcile %s because: %s", req, reconcile.ReasonsFrom(ctx)):
		case <-ctx.Done():
		}
		var cm corev1.ConfigMap
		err := m.Client().Get(ctx, req.NamespacedName, &cm)
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil // deleted: its Secret goes with it
		}
		if err != nil {
			return reconcile.Result{}, err
		}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
			Namespace: cm.Namespace, Name: cm.Name + "-secret",
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(&cm, corev1.SchemeGroupVersion.WithKind("ConfigMap"))},
		}}
		if err := m.Client().Create(ctx, secret); err != nil && !client.IsAlreadyExists(err) {
			return reconcile.Result{}, err
		}
		return reconcile.Result{}, nil
	})
	_, err = m.NewController(r, controller.Options{Name: "secrets"},
		controller.For[*corev1.ConfigMap](), controller.Owns[*corev1.Secret]())
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"}}
	if err := m.Client().Create(ctx, cm); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-seen)
	fmt.Println(<-seen)

	cancel()
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	// Output:
	// reconcile default/settings because: create ConfigMap default/settings
	// reconcile default/settings because: create Secret default/settings-secret
}

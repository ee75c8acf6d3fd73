package client_test

import (
	"context"
	"fmt"
	"log"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// Create, read, update and list ConfigMaps. The in-process test server
// stands in for a cluster; with a real one, cfg comes from
// client.Config(kubeconfig, context).
func ExampleClient() {
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

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings", Labels: map[string]string{"app": "demo"}},
		Data:       map[string]string{"color": "blue"},
	}
	if err := c.Create(ctx, cm); err != nil {
		log.Fatal(err)
	}

	var got corev1.ConfigMap
	if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "settings"}, &got); err != nil {
		log.Fatal(err)
	}
	got.Data["color"] = "green"
	if err := c.Update(ctx, &got); err != nil {
		log.Fatal(err)
	}
	// cm still has the resourceVersion it was created with: the server
	// refuses to let a stale copy overwrite the update.
	cm.Data["color"] = "red"
	fmt.Println("stale update is a conflict:", client.IsConflict(c.Update(ctx, cm)))

	var list corev1.ConfigMapList
	if err := c.List(ctx, &list, client.InNamespace("default"), client.MatchingLabels{"app": "demo"}); err != nil {
		log.Fatal(err)
	}
	for _, item := range list.Items {
		fmt.Println(item.Name, item.Data["color"])
	}

	err = c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "missing"}, &got)
	fmt.Println("missing is not found:", client.IsNotFound(err))
	// Output:
	// stale update is a conflict: true
	// settings green
	// missing is not found: true
}

package cache_test

import (
	"context"
	"fmt"
	"log"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// An informer keeps a local copy of the ConfigMaps of one namespace and
// tells a handler what changed; the lister reads the copy without
// asking the server.
func ExampleInformer() {
	srv, stop, err := apiservertest.Run(context.Background(), apiservertest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the informer
	c, err := client.New(srv.Config, client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	create := func(name string) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
		if err := c.Create(ctx, cm); err != nil {
			log.Fatal(err)
		}
	}
	create("first")

	lw, err := c.ListerWatcher(corev1.SchemeGroupVersion.WithKind("ConfigMap"), "default")
	if err != nil {
		log.Fatal(err)
	}
	inf := cache.NewInformer[*corev1.ConfigMap](lw, cache.InformerOptions[*corev1.ConfigMap]{})
	added := make(chan string, 10)
	if _, err := inf.AddHandler(cache.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(cm *corev1.ConfigMap, initial bool) {
			added <- fmt.Sprintf("add %s (in the initial list: %t)", cm.Name, initial)
		},
	}, cache.HandlerOptions{Name: "example"}); err != nil {
		log.Fatal(err)
	}
	go inf.Run(ctx) // until ctx ends
	if err := cache.WaitForSync(ctx, inf); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-added)

	create("second")
	fmt.Println(<-added)
	if cm, ok := inf.Lister().Namespace("default").Get("second"); ok {
		fmt.Println("cached:", cm.Name)
	}
	// Output:
	// add first (in the initial list: true)
	// add second (in the initial list: false)
	// cached: second
}

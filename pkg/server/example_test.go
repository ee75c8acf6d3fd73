package server_test

import (
	"context"
	"fmt"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server"
)

// A program embedding Setpoint: a whole server on the memory store, with
// the built-in controllers, reached through the admin's *rest.Config.
func Example() {
	srv, err := server.New(server.Config{
		Storage: server.StorageMemory,
		Listen:  "127.0.0.1:0",
		Logger:  slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	<-srv.Ready()

	c, err := client.New(srv.AdminConfig(), client.Options{})
	if err != nil {
		panic(err)
	}
	var ns corev1.Namespace
	if err := c.Get(ctx, types.NamespacedName{Name: "default"}, &ns); err != nil {
		panic(err)
	}
	fmt.Println(ns.Name, ns.Status.Phase)

	cancel()
	fmt.Println("stopped:", <-done)
	// Output:
	// default Active
	// stopped: <nil>
}

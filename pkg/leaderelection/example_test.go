package leaderelection_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// Two replicas compete for one Lease: the first leads; when it stops,
// it releases the lease and the second takes over at once, with a
// larger fencing token.
func ExampleElector() {
	srv, stop, err := apiservertest.Run(context.Background(), apiservertest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	c, err := client.New(srv.Config, client.Options{})
	if err != nil {
		log.Fatal(err)
	}

	led := make(chan string)
	run := func(ctx context.Context, id string) <-chan error {
		e, err := leaderelection.New(leaderelection.Config{
			Client: c, Namespace: "default", Name: "example-lock", Identity: id,
			LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond,
			ReleaseOnCancel: true,
			Callbacks: leaderelection.Callbacks{
				OnStartedLeading: func(ctx context.Context) {
					tok, _ := leaderelection.TokenFrom(ctx)
					led <- fmt.Sprintf("%s leads with token %d", id, tok)
					<-ctx.Done() // the leader's work runs until its term ends
				},
			},
		})
		if err != nil {
			log.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- e.Run(ctx) }()
		return done
	}

	ctxA, stopA := context.WithCancel(context.Background())
	doneA := run(ctxA, "replica-a")
	fmt.Println(<-led)
	ctxB, stopB := context.WithCancel(context.Background())
	doneB := run(ctxB, "replica-b")

	stopA()
	fmt.Println(<-led)
	stopB()
	for _, done := range []<-chan error{doneA, doneB} {
		if err := <-done; err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// replica-a leads with token 0
	// replica-b leads with token 1
}

package workqueue_test

import (
	"fmt"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// A worker loop: Get hands out each key once however often it was
// added, and Done ends its processing.
func ExampleQueue() {
	q := workqueue.New(workqueue.Options[string]{})
	q.Add("default/a")
	q.Add("default/b")
	q.Add("default/a") // already queued: merged
	q.ShutDown()       // Get drains what is queued, then reports shutdown

	for {
		key, shutdown := q.Get()
		if shutdown {
			break
		}
		fmt.Println("processing", key)
		q.Done(key)
	}
	// Output:
	// processing default/a
	// processing default/b
}

// AddAfter on a fake clock: the key is queued when the clock reaches its
// time, so a test of a retry waits for nothing.
func ExampleQueue_AddAfter() {
	c := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	q := workqueue.New(workqueue.Options[string]{Clock: c})
	q.AddAfter("default/a", time.Minute)

	c.Step(59 * time.Second)
	fmt.Println("after 59s:", q.Len())
	c.Step(time.Second)
	fmt.Println("after 1m:", q.Len())
	// Output:
	// after 59s: 0
	// after 1m: 1
}

// The delays AddRateLimited waits: each key's doubles from 5ms with
// every failure, until Forget after a success starts it over.
func ExampleDefaultRateLimiter() {
	rl := workqueue.DefaultRateLimiter[string](nil)
	for range 4 {
		fmt.Println(rl.When("default/a"))
	}
	fmt.Println("another key:", rl.When("default/b"))
	rl.Forget("default/a")
	fmt.Println("after Forget:", rl.When("default/a"))
	// Output:
	// 5ms
	// 10ms
	// 20ms
	// 40ms
	// another key: 5ms
	// after Forget: 5ms
}

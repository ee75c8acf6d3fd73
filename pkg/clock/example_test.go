package clock_test

import (
	"fmt"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// A test steps a fake clock: timers fire in due order as Step passes
// them, and an AfterFunc's function has run by the time Step returns.
func ExampleFake() {
	c := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	c.AfterFunc(2*time.Second, func() { fmt.Println("two seconds at", c.Now().Format(time.TimeOnly)) })
	c.AfterFunc(time.Second, func() { fmt.Println("one second at", c.Now().Format(time.TimeOnly)) })
	t := c.NewTimer(time.Minute)

	c.Step(5 * time.Second)
	fmt.Println("pending:", len(c.Waiting()))
	c.Step(time.Minute)
	fmt.Println("timer fired at", (<-t.C()).Format(time.TimeOnly))
	// Output:
	// one second at 00:00:01
	// two seconds at 00:00:02
	// pending: 1
	// timer fired at 00:01:00
}

package eventttl_test

import (
	"slices"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// fakeClock is a clock.Fake that also tells whether a timer is set.
type fakeClock struct{ *clock.Fake }

// due reports whether a timer is set for exactly at.
func (c fakeClock) due(at time.Time) bool { return slices.ContainsFunc(c.Waiting(), at.Equal) }

func newFakeClock(now time.Time) fakeClock { return fakeClock{clock.NewFake(now)} }

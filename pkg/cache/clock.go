package cache

import "github.com/setpoint-dev/setpoint/pkg/clock"

// Clock is the time source of reflectors and informers. Tests inject one,
// or run under testing/synctest, where RealClock is already virtual.
type Clock = clock.Clock

// Timer is the part of *time.Timer the cache uses.
type Timer = clock.Timer

// RealClock is the wall clock.
type RealClock = clock.Real

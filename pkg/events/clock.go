package events

import "github.com/setpoint-dev/setpoint/pkg/clock"

// Clock is where the recorder reads time: Event timestamps, the spam
// filter's refills, the aggregation window and retry waits. Tests inject
// one so those decisions do not depend on how fast the test runs.
type Clock = clock.Clock

// Timer is the part of *time.Timer the recorder uses.
type Timer = clock.Timer

// RealClock is the machine's clock, the default.
type RealClock = clock.Real

package envtest

import "github.com/setpoint-dev/setpoint/internal/logtest"

// Logs collect what a component logs during a test, so the test can
// check it; WithLogs hands them to a manager. The zero value is ready.
// Its methods: Logger(level) returns a text logger writing to it,
// String what was written, HasErrors whether an ERROR record was.
type Logs = logtest.Buffer

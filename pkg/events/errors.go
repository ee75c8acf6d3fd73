package events

import (
	"errors"
	"fmt"
)

var (
	// ErrStarted is returned by a second call of Start: one goroutine
	// writes a Broadcaster's queue, so aggregation sees Events in order.
	ErrStarted = errors.New("events: broadcaster already started")
	// ErrUnknownKind: the object has no apiVersion and kind, and the
	// client's scheme does not know its Go type, so no reference to it
	// can be built.
	ErrUnknownKind = errors.New("events: cannot tell the object's apiVersion and kind")
)

// ConfigError is an Options value that cannot work; NewBroadcaster
// returns it.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("events: invalid options: %s %s", e.Field, e.Reason)
}

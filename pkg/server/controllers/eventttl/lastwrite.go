package eventttl

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The last write of an Event, as its timestamps tell it. The server
// stamps creationTimestamp; recorders move the others on every write
// (a repeat bumps lastTimestamp or series.lastObservedTime), so the
// newest of them stands in for the write time kube-apiserver's lease
// records. An events.k8s.io/v1 Event's deprecatedLastTimestamp is
// core's lastTimestamp.

func lastWrite(e *corev1.Event) time.Time {
	t := latest(e.CreationTimestamp.Time, e.LastTimestamp.Time, e.EventTime.Time)
	if e.Series != nil {
		t = latest(t, e.Series.LastObservedTime.Time)
	}
	return t
}

func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

package eventttl

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/cache"
)

// Trim is the cache transform for core/v1 Events in a manager that runs
// this controller: it keeps what expiry reads (metadata and the write
// times of lastWrite) and drops the rest. Events are the most numerous
// kind on a busy server, and their messages and involved objects are
// most of each one, so the cache holds a fraction of the bytes.
func Trim(obj cache.Object) (cache.Object, error) {
	ev, ok := obj.(*corev1.Event)
	if !ok {
		return nil, fmt.Errorf("eventttl: trimming %T, not an Event", obj)
	}
	out := &corev1.Event{
		TypeMeta:      ev.TypeMeta,
		ObjectMeta:    ev.ObjectMeta,
		LastTimestamp: ev.LastTimestamp,
		EventTime:     ev.EventTime,
	}
	if ev.Series != nil {
		out.Series = &corev1.EventSeries{LastObservedTime: ev.Series.LastObservedTime}
	}
	return out, nil
}

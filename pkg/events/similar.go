package events

import (
	"sync"
	"time"
)

// combinedPrefix starts the message of an Event that stands for similar
// ones, as client-go writes it.
const combinedPrefix = "(combined from similar events): "

// combinedMessage is the message in the aggregation key of a combined
// Event: every similar Event past the threshold bumps that one Event. A
// NUL keeps it apart from any message a recorder writes.
const combinedMessage = "\x00combined"

// similarEvents is client-go's EventAggregator: Events alike but for
// their message (same source, object, type and reason) are written one
// by one until maxEvents distinct messages were seen within the window
// of each other; from then on, while they keep coming, one Event stands
// for them all, its message the latest one's under combinedPrefix. A
// ReplicaSet creating a hundred pods so writes ten "Created pod" Events
// and one combined Event counting the rest.
type similarEvents struct {
	maxEvents int
	window    time.Duration

	mu      sync.Mutex
	records *lru[aggKey, *similarRecord] // by aggKey without message
}

// similarRecord is what one group of similar Events has seen: a bounded
// set of their messages and when the last one came.
type similarRecord struct {
	messages map[string]struct{}
	last     time.Time
}

func newSimilarEvents(size, maxEvents int, window time.Duration) *similarEvents {
	return &similarEvents{maxEvents: maxEvents, window: window, records: newLRU[aggKey, *similarRecord](size)}
}

// observe records an Event of key k at now and returns the key and
// message it is written under: its own, or the combined Event's.
func (s *similarEvents) observe(k aggKey, now time.Time) (aggKey, string) {
	message := k.message
	group := k
	group.message = ""
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.records.get(group)
	if !ok || now.Sub(r.last) > s.window {
		r = &similarRecord{messages: map[string]struct{}{}}
		s.records.put(group, r)
	}
	r.messages[message] = struct{}{}
	r.last = now
	if len(r.messages) < s.maxEvents {
		return k, message
	}
	// Keep the set below the threshold, so that every later Event of
	// the group is combined whatever its message.
	for m := range r.messages {
		delete(r.messages, m)
		break
	}
	group.message = combinedMessage
	return group, combinedPrefix + message
}

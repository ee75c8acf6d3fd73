package manager

import (
	"os"

	"github.com/setpoint-dev/setpoint/pkg/events"
)

// EventRecorder returns a recorder that writes core/v1 Events with
// source.component set to component (usually the controller's name).
// All recorders share one writer, which the manager runs on every
// replica: followers may record too.
func (m *Manager) EventRecorder(component string) *events.Recorder {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		host, _ := os.Hostname()
		b, err := events.NewBroadcaster(events.Options{
			Client: m.api, Host: host, Logger: m.log, Registerer: m.registry,
		})
		if err != nil {
			// Only a bad Options fails, and these are the defaults.
			m.log.Error("event recorder unavailable", "err", err)
			return nil
		}
		m.events = b
		if m.started && m.eventsCtx != nil {
			// Start has taken its list of runnables; run it from here.
			ctx := m.eventsCtx
			m.late.Go(func() { _ = b.Start(ctx) })
		} else if !m.started {
			m.everywhere = append(m.everywhere, b)
		}
	}
	return m.events.Recorder(component)
}

package manager

import (
	"context"
	"errors"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
)

// electionState is what the rest of the manager knows of the election.
type electionState struct {
	enabled bool
	mu      sync.Mutex
	running bool
	lead    bool
	elector *leaderelection.Elector
}

func (e *electionState) leading() bool {
	if !e.enabled {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lead
}

func (e *electionState) set(f func(*electionState)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f(e)
}

// healthy fails when the election should run and does not.
func (e *electionState) healthy() error {
	if !e.enabled {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.running {
		return errors.New("leader election is not running")
	}
	return nil
}

// FencingToken is the fencing token of this replica's current term as
// leader, and false when it does not lead. Without leader election the
// replica always leads, with token 0. Pass it with writes that a
// deposed leader must not make (see leaderelection.Token).
func (m *Manager) FencingToken() (leaderelection.Token, bool) {
	e := m.election
	if !e.enabled {
		return 0, true
	}
	e.mu.Lock()
	el := e.elector
	e.mu.Unlock()
	if el == nil {
		return 0, false
	}
	return el.Token()
}

// elect runs the election until ctx ends, running lead for each term.
func (m *Manager) elect(ctx context.Context, lead func(ctx context.Context)) error {
	el, err := leaderelection.New(leaderelection.Config{
		Client:    m.api,
		Namespace: m.opts.LeaderElectionNamespace, Name: m.opts.LeaderElectionID,
		Identity:      m.identity,
		LeaseDuration: m.opts.LeaseDuration, RenewDeadline: m.opts.RenewDeadline, RetryPeriod: m.opts.RetryPeriod,
		ReleaseOnCancel: true,
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				m.election.set(func(e *electionState) { e.lead = true })
				m.log.Info("became the leader", "identity", m.identity)
				lead(ctx)
			},
			OnStoppedLeading: func() {
				m.election.set(func(e *electionState) { e.lead = false })
				if ctx.Err() == nil {
					m.log.Info("lost the leadership; leader-only work stopped, competing again", "identity", m.identity)
				}
			},
			OnNewLeader: func(id string) {
				if id != m.identity {
					m.log.Info("new leader", "leader", id)
				}
			},
		},
		Logger:     m.log,
		Registerer: m.registry,
		MetricName: m.opts.LeaderElectionID,
	})
	if err != nil {
		return err
	}
	m.election.set(func(e *electionState) { e.elector, e.running = el, true })
	defer m.election.set(func(e *electionState) { e.running = false })
	return el.Run(ctx)
}

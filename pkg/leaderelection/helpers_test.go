package leaderelection

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/setpoint-dev/setpoint/internal/logtest"
)

// term is one OnStartedLeading call as a probe saw it.
type term struct {
	id             string
	token          Token
	hasToken       bool
	started, ended time.Time
}

// probe records what one or more electors' callbacks did, and fails the
// test the moment two leaders overlap: OnStartedLeading increments
// leaders on entry and decrements before it returns.
type probe struct {
	t       testing.TB
	leaders atomic.Int32
	maxSeen atomic.Int32

	mu         sync.Mutex
	terms      []term
	stopped    map[string]int
	newLeaders map[string][]string
	started    chan string // each OnStartedLeading's identity, if not nil
}

func newProbe(t testing.TB) *probe {
	return &probe{t: t, stopped: map[string]int{}, newLeaders: map[string][]string{}}
}

// callbacks for the candidate id. work, if set, runs as the leader's
// work; the default waits for ctx to end.
func (p *probe) callbacks(id string, work func(ctx context.Context)) Callbacks {
	return Callbacks{
		OnStartedLeading: func(ctx context.Context) {
			n := p.leaders.Add(1)
			for {
				m := p.maxSeen.Load()
				if n <= m || p.maxSeen.CompareAndSwap(m, n) {
					break
				}
			}
			if n > 1 {
				p.t.Errorf("%s started leading while %d other leader(s) led", id, n-1)
			}
			tok, ok := TokenFrom(ctx)
			p.mu.Lock()
			i := len(p.terms)
			p.terms = append(p.terms, term{id: id, token: tok, hasToken: ok, started: time.Now()})
			ch := p.started
			p.mu.Unlock()
			if ch != nil {
				ch <- id
			}
			if work != nil {
				work(ctx)
			} else {
				<-ctx.Done()
			}
			p.mu.Lock()
			p.terms[i].ended = time.Now()
			p.mu.Unlock()
			p.leaders.Add(-1)
		},
		OnStoppedLeading: func() {
			p.mu.Lock()
			p.stopped[id]++
			p.mu.Unlock()
		},
		OnNewLeader: func(leader string) {
			p.mu.Lock()
			p.newLeaders[id] = append(p.newLeaders[id], leader)
			p.mu.Unlock()
		},
	}
}

func (p *probe) allTerms() []term {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]term(nil), p.terms...)
}

func (p *probe) stoppedCount(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped[id]
}

func (p *probe) lastNewLeader(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.newLeaders[id]; len(l) > 0 {
		return l[len(l)-1]
	}
	return ""
}

// logs collects what the elector logs, so a test can check that a clean
// run logged no ERROR.
type logs struct{ logtest.Buffer }

func (l *logs) logger() *slog.Logger { return l.Logger(slog.LevelDebug) }

// checkNoErrors fails t at cleanup if anything logged at ERROR.
func checkNoErrors(t testing.TB, l *logs) {
	t.Cleanup(func() {
		if l.HasErrors() {
			t.Errorf("ERROR log record(s); logs:\n%s", l)
		}
	})
}

// runElector runs e until ctx ends; the channel yields Run's result.
func runElector(ctx context.Context, e *Elector) <-chan error {
	done := make(chan error, 1)
	go func() {
		done <- e.Run(ctx)
		close(done)
	}()
	return done
}

// gaugeValue reads leader_election_master_status{name} from reg; -1 when
// absent.
func gaugeValue(t testing.TB, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "leader_election_master_status" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "name" && lp.GetValue() == name {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return -1
}

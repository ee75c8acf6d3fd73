package manager

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Start runs the manager until ctx ends or a runnable fails, then stops
// everything in reverse order and returns: nil after a clean stop, the
// runnable's error after a failure. It runs once.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return errors.New("manager: already started")
	}
	m.started = true
	everywhere := append([]Runnable(nil), m.everywhere...)
	leaderOnly := append([]Runnable(nil), m.leaderOnly...)
	m.mu.Unlock()

	srvs, lns, err := m.servers(m.election)
	if err != nil {
		return err
	}
	m.mu.Lock()
	for _, ln := range lns {
		m.bound = append(m.bound, ln.Addr().String())
	}
	m.mu.Unlock()
	failures := make(chan error, 1)
	fail := func(err error) {
		select {
		case failures <- err:
		default:
		}
	}

	// HTTP first, so probes answer (not ready) while caches sync.
	var httpWG sync.WaitGroup
	for i, srv := range srvs {
		httpWG.Go(func() {
			if err := srv.Serve(lns[i]); err != nil && !errors.Is(err, http.ErrServerClosed) {
				fail(fmt.Errorf("manager: serving %s: %w", lns[i].Addr(), err))
			}
		})
	}
	// Informers outlive the runnables: they stop last, and keep their
	// state across leadership terms.
	cacheCtx, stopCache := context.WithCancel(context.WithoutCancel(ctx))
	cacheDone := make(chan struct{})
	go func() {
		defer close(cacheDone)
		_ = m.factory.Run(cacheCtx)
	}()

	runCtx, stopRun := context.WithCancel(ctx)
	m.mu.Lock()
	m.eventsCtx = runCtx
	m.mu.Unlock()
	var runWG sync.WaitGroup
	run := func(ctx context.Context, wg *sync.WaitGroup, r Runnable) {
		wg.Go(func() {
			// A runnable that returns its context's error has stopped
			// because it was told to (a leadership term ended while it
			// started), not failed.
			if err := r.Start(ctx); err != nil && !(ctx.Err() != nil && errors.Is(err, ctx.Err())) {
				fail(err)
			}
		})
	}
	for _, r := range everywhere {
		run(runCtx, &runWG, r)
	}
	lead := func(ctx context.Context) {
		m.electedOnce.Do(func() { close(m.elected) })
		var wg sync.WaitGroup
		for _, r := range leaderOnly {
			run(ctx, &wg, r)
		}
		wg.Wait()
	}
	if m.opts.LeaderElection {
		runWG.Go(func() {
			if err := m.elect(runCtx, lead); err != nil {
				fail(err)
			}
		})
	} else {
		runWG.Go(func() { lead(runCtx) })
	}

	var runErr error
	select {
	case <-ctx.Done():
		m.log.Info("stopping")
	case runErr = <-failures:
		m.log.Error("a runnable failed, stopping", "err", runErr)
	}
	stopRun()
	m.mu.Lock()
	m.eventsCtx = nil
	m.mu.Unlock()
	runWG.Go(m.late.Wait)
	if !waitFor(&runWG, m.opts.GracefulShutdownTimeout) {
		runErr = errors.Join(runErr, fmt.Errorf("manager: runnables still running after %v", m.opts.GracefulShutdownTimeout))
	}
	stopCache()
	<-cacheDone
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range srvs {
		_ = srv.Shutdown(sctx)
	}
	httpWG.Wait()
	if runErr == nil {
		m.log.Info("stopped")
	}
	return runErr
}

// waitFor waits for wg, up to d (forever when d is negative); false
// means it timed out.
func waitFor(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	if d < 0 {
		<-done
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// Addrs are the addresses the manager's HTTP servers listen on, once
// Start has begun: how tests find a port picked with ":0".
func (m *Manager) Addrs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.bound...)
}

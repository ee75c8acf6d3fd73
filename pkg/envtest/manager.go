package envtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// managerReadyTimeout bounds the wait for a manager's caches to sync and
// its controllers to run.
const managerReadyTimeout = 30 * time.Second

// ManagerOption adjusts a manager StartManager starts.
type ManagerOption func(*managerSettings)

type managerSettings struct {
	opts  manager.Options
	logs  *Logs
	level slog.Level
}

// WithManagerOptions are the manager's options. When they name no
// scheme, the manager uses the env's; when they name no logger, its logs
// are discarded.
func WithManagerOptions(opts manager.Options) ManagerOption {
	return func(s *managerSettings) { s.opts = opts }
}

// WithLogs sends the manager's logs, from level up, to logs, and fails
// the test if any of them is an error; the logs are printed when the
// test fails. It overrides the Logger of WithManagerOptions.
func WithLogs(logs *Logs, level slog.Level) ManagerOption {
	return func(s *managerSettings) {
		s.logs = logs
		s.level = level
	}
}

// StartManager creates a manager on the env's config, lets setup
// register the controllers and runnables under test, starts it, and
// returns once it is ready: its informers synced and its controllers
// running, as its /readyz reports. When the test ends the manager is
// stopped, and the test fails if Start returned an error (or, with
// WithLogs, if the manager logged one).
//
// The manager serves /readyz on a loopback port of its own when the
// options name no HealthAddr: that is how readiness is observed.
func (e *Env) StartManager(t testing.TB, setup func(*manager.Manager) error, opts ...ManagerOption) *manager.Manager {
	t.Helper()
	m, stop, err := e.RunManager(setup, opts...)
	if err != nil {
		t.Fatalf("envtest: %v", err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("envtest: %v", err)
		}
	})
	var s managerSettings
	for _, o := range opts {
		o(&s)
	}
	if s.logs != nil {
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("manager log:\n%s", s.logs)
			}
		})
	}
	return m
}

// RunManager is StartManager outside a test: stop stops the manager and
// returns Start's error, joined with the error records WithLogs saw.
func (e *Env) RunManager(setup func(*manager.Manager) error, opts ...ManagerOption) (_ *manager.Manager, stop func() error, _ error) {
	var s managerSettings
	for _, o := range opts {
		o(&s)
	}
	mopts := s.opts
	if mopts.Client.Scheme == nil {
		mopts.Client.Scheme = e.scheme
	}
	if s.logs != nil {
		mopts.Logger = s.logs.Logger(s.level)
	} else if mopts.Logger == nil {
		mopts.Logger = slog.New(slog.DiscardHandler)
	}
	if mopts.HealthAddr == "" {
		mopts.HealthAddr = "127.0.0.1:0"
	}
	m, err := manager.New(e.Config(), mopts)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the manager: %w", err)
	}
	if setup != nil {
		if err := setup(m); err != nil {
			return nil, nil, fmt.Errorf("setting up the manager: %w", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	stop = sync.OnceValue(func() error {
		cancel()
		var errs []error
		if err := <-done; err != nil {
			errs = append(errs, fmt.Errorf("the manager stopped with an error: %w", err))
		}
		if s.logs != nil && s.logs.HasErrors() {
			errs = append(errs, fmt.Errorf("the manager logged errors:\n%s", s.logs))
		}
		return errors.Join(errs...)
	})
	if err := waitReady(m, done); err != nil {
		if !errors.Is(err, errStopped) {
			cancel()
			<-done
		}
		return nil, nil, fmt.Errorf("the manager: %w", err)
	}
	return m, stop, nil
}

// errStopped is a manager's Start returning before it was ready.
var errStopped = errors.New("stopped before it was ready")

// waitReady polls m's /readyz until it answers 200, Start returns, or
// managerReadyTimeout passes.
func waitReady(m *manager.Manager, done <-chan error) error {
	hc := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(managerReadyTimeout)
	last := errors.New("not serving /readyz yet")
	for {
		for _, addr := range m.Addrs() {
			if err := readyz(hc, addr); err != nil {
				last = err
				continue
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %w", managerReadyTimeout, last)
		}
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("%w: %w", errStopped, err)
			}
			return errStopped
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// readyz asks one of the manager's servers for its readiness; a server
// without /readyz (metrics only) answers 404.
func readyz(hc *http.Client, addr string) error {
	resp, err := hc.Get("http://" + addr + "/readyz?verbose")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz: %s: %s", resp.Status, body)
	}
	return nil
}

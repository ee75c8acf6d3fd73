package server

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Run serves until ctx ends or the API fails, then stops everything it
// started and closes the store New opened. On a clean stop the built-in
// controllers end first, releasing their lease while the API still
// answers, then the API; it returns nil.
func (s *Server) Run(ctx context.Context) error {
	if s.ownStore {
		defer s.store.Close()
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// Cancel before waiting: the goroutines below end with ctx, also
	// when the API stops on an error.
	defer wg.Wait()
	defer cancel()
	compactor := &storage.Compactor{Store: s.store, Retention: s.retention(), Logger: s.log}
	wg.Go(func() {
		if err := compactor.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
			s.log.Warn("compactor stopped", "err", err)
		}
	})
	if s.backend == StorageEtcd {
		wg.Go(func() { _ = reachability{store: s.store, log: s.log}.Start(ctx) })
	}
	// The API outlives the controllers: they stop first (releasing their
	// lease), then the API.
	apiCtx, stopAPI := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAPI()
	ctrlDone := make(chan struct{})
	wg.Go(func() {
		<-ctx.Done()
		<-ctrlDone
		stopAPI()
	})
	wg.Go(func() {
		defer close(ctrlDone)
		select {
		case <-s.api.Ready():
			s.logReady()
		case <-ctx.Done():
			return
		}
		s.runControllers(ctx)
	})
	err := s.api.Run(apiCtx, s.ln, s.creds.TLSConfig())
	cancel() // the API failed on its own: stop the rest too
	return err
}

func (s *Server) logReady() {
	attrs := []any{"url", s.url}
	if s.cfg.Kubeconfig != "" {
		abs, _ := filepath.Abs(s.cfg.Kubeconfig)
		attrs = append(attrs, "kubeconfig", abs)
	}
	s.log.Info("setpoint API server ready", append(attrs, "storage", s.backend)...)
}

// runControllers runs the enabled built-in controllers until ctx ends.
// They are clients of this server like any other, over loopback, as the
// server's own identity so that the in-flight limits never starve them.
func (s *Server) runControllers(ctx context.Context) {
	opts := s.cfg.Controllers
	enabled := func(name string) bool { return !slices.Contains(opts.Disabled, name) }
	if !slices.ContainsFunc(controllers.Names(), enabled) {
		return
	}
	if opts.Logger == nil {
		opts.Logger = s.log
	}
	if len(opts.RootCA) == 0 {
		// What pods must trust to reach this server.
		opts.RootCA = s.creds.CAPEM
	}
	if ca := s.creds.CA(); opts.Signer == nil && ca != nil {
		// The CA clients' certificates are checked against: what it
		// signs for a CertificateSigningRequest authenticates.
		opts.Signer = ca
	}
	if err := controllers.Run(ctx, s.LoopbackConfig(), opts); err != nil {
		s.log.Error("built-in controllers stopped", "err", err)
	}
}

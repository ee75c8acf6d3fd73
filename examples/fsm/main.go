// Command fsm is the Pipeline operator, Setpoint's state-machine
// example: it walks each Pipeline (fsm.example.com/v1) through
// Validated, Provisioned and Published, and through Unpublished and
// Deprovisioned when it is deleted, with one status condition per
// state. It installs nothing: apply config/crd.yaml first (see
// README.md).
//
// SIGINT or SIGTERM stops it cleanly; a second signal exits at once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	fsmv1 "github.com/setpoint-dev/setpoint/examples/fsm/api/v1"
	pipelinecontroller "github.com/setpoint-dev/setpoint/examples/fsm/controller"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

func main() {
	err := run(manager.SignalContext(), os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		fmt.Fprintln(os.Stderr, "fsm:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("fsm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default $KUBECONFIG, else in-cluster, else ~/.kube/config)")
	var namespaces namespaceList
	fs.Var(&namespaces, "namespace", "watch only this namespace; repeat or separate with commas for several (default all)")
	leaderElect := fs.Bool("leader-elect", false, "run the controller only while holding the leader lease, for running several replicas")
	leaseNamespace := fs.String("leader-election-namespace", "default", "namespace of the leader lease")
	healthAddr := fs.String("health-addr", "127.0.0.1:8081", "serve /healthz and /readyz here; empty turns them off")
	metricsAddr := fs.String("metrics-addr", "127.0.0.1:8080", "serve /metrics here; empty turns it off")
	debug := fs.Bool("debug", false, "log at debug level (every state run)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// The finalizer package logs through the default logger.
	slog.SetDefault(logger)

	cfg, err := client.Config(*kubeconfig, "")
	if err != nil {
		return err
	}
	scheme := client.NewScheme()
	if err := fsmv1.AddToScheme(scheme); err != nil {
		return err
	}
	m, err := manager.New(cfg, manager.Options{
		Client:                  client.Options{Scheme: scheme},
		Namespaces:              namespaces,
		HealthAddr:              *healthAddr,
		MetricsAddr:             *metricsAddr,
		LeaderElection:          *leaderElect,
		LeaderElectionID:        "pipeline-operator",
		LeaderElectionNamespace: *leaseNamespace,
		Logger:                  logger,
	})
	if err != nil {
		return err
	}
	if err := pipelinecontroller.Setup(m); err != nil {
		return err
	}
	logger.Info("starting the pipeline operator", "server", cfg.Host, "namespaces", []string(namespaces), "leaderElection", *leaderElect)
	return m.Start(ctx)
}

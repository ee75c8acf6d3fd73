// Command foo is the Foo operator, Setpoint's smallest complete example:
// it reconciles Foo objects (foo.example.com/v1), keeping a ConfigMap
// per Foo and a Ready condition that is True when spec.value is "bar".
// It installs nothing: apply config/crd.yaml first (see README.md).
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

	foov1 "github.com/setpoint-dev/setpoint/examples/foo/api/v1"
	foocontroller "github.com/setpoint-dev/setpoint/examples/foo/controller"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

func main() {
	err := run(manager.SignalContext(), os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		fmt.Fprintln(os.Stderr, "foo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("foo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default $KUBECONFIG, else in-cluster, else ~/.kube/config)")
	var namespaces namespaceList
	fs.Var(&namespaces, "namespace", "watch only this namespace; repeat or separate with commas for several (default all)")
	leaderElect := fs.Bool("leader-elect", false, "run the controller only while holding the leader lease, for running several replicas")
	leaseNamespace := fs.String("leader-election-namespace", "default", "namespace of the leader lease")
	healthAddr := fs.String("health-addr", "127.0.0.1:8081", "serve /healthz and /readyz here; empty turns them off")
	metricsAddr := fs.String("metrics-addr", "127.0.0.1:8080", "serve /metrics here; empty turns it off")
	requeueAfter := fs.Duration("requeue-after", foocontroller.DefaultRequeueAfter, "how soon a Foo that is not Ready is checked again")
	debug := fs.Bool("debug", false, "log at debug level")
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
	if err := foov1.AddToScheme(scheme); err != nil {
		return err
	}
	m, err := manager.New(cfg, manager.Options{
		Client:                  client.Options{Scheme: scheme},
		Namespaces:              namespaces,
		HealthAddr:              *healthAddr,
		MetricsAddr:             *metricsAddr,
		LeaderElection:          *leaderElect,
		LeaderElectionID:        "foo-operator",
		LeaderElectionNamespace: *leaseNamespace,
		Logger:                  logger,
	})
	if err != nil {
		return err
	}
	if err := foocontroller.Setup(m, &foocontroller.Reconciler{RequeueAfter: *requeueAfter}); err != nil {
		return err
	}
	logger.Info("starting the foo operator", "server", cfg.Host, "namespaces", []string(namespaces), "leaderElection", *leaderElect)
	return m.Start(ctx)
}

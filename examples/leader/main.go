// Command leader is the smallest program that uses Setpoint's leader
// election: run several copies against one API server and exactly one
// says it leads. Stop it (Ctrl-C, SIGTERM) and it releases the lease, so
// another copy takes over at once.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "leader:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("leader", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default $KUBECONFIG or ~/.kube/config)")
	id := fs.String("id", "", "this candidate's identity (default random)")
	name := fs.String("lease-lock-name", "example-lock", "name of the Lease")
	namespace := fs.String("lease-lock-namespace", "default", "namespace of the Lease")
	leaseDuration := fs.Duration("lease-duration", leaderelection.DefaultLeaseDuration, "how long followers wait before taking over a silent leader's lease")
	renewDeadline := fs.Duration("renew-deadline", leaderelection.DefaultRenewDeadline, "how long the leader leads without a successful renewal")
	retryPeriod := fs.Duration("retry-period", leaderelection.DefaultRetryPeriod, "wait between attempts to acquire or renew")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *id == "" {
		*id = randomID()
	}

	cfg, err := client.Config(*kubeconfig, "")
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	c, err := client.New(cfg, client.Options{Logger: logger})
	if err != nil {
		return err
	}
	e, err := leaderelection.New(leaderelection.Config{
		Client: c, Namespace: *namespace, Name: *name, Identity: *id,
		LeaseDuration: *leaseDuration, RenewDeadline: *renewDeadline, RetryPeriod: *retryPeriod,
		ReleaseOnCancel: true,
		Logger:          logger,
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				tok, _ := leaderelection.TokenFrom(ctx)
				fmt.Fprintf(stdout, "leading as %s\n", *id)
				fmt.Fprintf(stdout, "fencing token: %d\n", tok)
				// Leader-only work goes here; it must return when ctx ends.
				<-ctx.Done()
			},
			OnStoppedLeading: func() { fmt.Fprintln(stdout, "stopped leading") },
			OnNewLeader: func(leader string) {
				if leader != *id {
					fmt.Fprintf(stdout, "new leader: %s\n", leader)
				}
			},
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "candidate %s for lease %s/%s\n", *id, *namespace, *name)
	if err := e.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func randomID() string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return fmt.Sprintf("candidate-%d", time.Now().UnixNano())
	}
	return "candidate-" + hex.EncodeToString(b)
}

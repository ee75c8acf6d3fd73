// Command setpoint runs the Setpoint API server and its tools.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/setpoint-dev/setpoint/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

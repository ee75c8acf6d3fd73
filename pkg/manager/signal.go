package manager

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext returns a context that ends on the first SIGINT or
// SIGTERM, so Start drains and returns; a second signal exits the
// process at once with status 1, for when draining hangs.
func SignalContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		cancel()
		<-ch
		fmt.Fprintln(os.Stderr, "second signal: exiting without draining")
		os.Exit(1)
	}()
	return ctx
}

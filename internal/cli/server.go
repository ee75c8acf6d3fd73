package cli

import (
	"context"
	"fmt"
	"io"
)

// runServer will run the API server on the embedded store. Until the API
// server lands it only prints the version, so that the README's main
// command is stable from the first commit on.
func runServer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flags("server", stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "setpoint server: unexpected arguments %q\n", fs.Args())
		return 2
	}
	printVersion(stdout)
	fmt.Fprintln(stdout, "The API server is not built yet: this build has the storage layer only.")
	return 0
}

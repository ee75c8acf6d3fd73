package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/setpoint-dev/setpoint/internal/version"
)

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flags("version", stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	printVersion(stdout)
	return 0
}

func printVersion(w io.Writer) {
	fmt.Fprintf(w, "setpoint %s (commit %s, %s %s/%s)\n", version.Version, version.Commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

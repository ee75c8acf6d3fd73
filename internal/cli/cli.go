// Package cli is the setpoint command line: one file per subcommand, each
// a function from arguments and output streams to an exit code, so that
// tests run them in-process.
package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"version":    {"print the version and exit", runVersion},
	"server":     {"run the API server (see `setpoint server -h`)", runServer},
	"migrate":    {"copy a stopped server's embedded store into etcd (setpoint migrate --from bolt:DIR --to etcd:URL)", runMigrate},
	"snapshot":   {"save the embedded store to a file, or restore one (setpoint snapshot save|restore FILE)", runSnapshot},
	"node":       {"stop or start a simulated node's kubelet (setpoint node stop|start NAME)", runNode},
	"kubeconfig": {"write a kubeconfig for a user, with a client certificate signed by the server's CA (setpoint kubeconfig --user NAME [--group G]...)", runKubeconfig},
}

// Run runs the subcommand named by args[0] and returns the process exit
// code: 0 on success, 1 when the command failed, 2 for bad usage.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "setpoint: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: setpoint <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
}

// flags returns the flag set for a subcommand, reporting to stderr.
func flags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("setpoint "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

const (
	// kubectlTimeout bounds one kubectl command.
	kubectlTimeout = 30 * time.Second
	// eventTimeout bounds the wait for something a background kubectl
	// should print or do.
	eventTimeout = 15 * time.Second
)

// kubectlPath finds kubectl on PATH. Without it the test fails under CI
// (the CI environment variable is set) and is skipped elsewhere.
func kubectlPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("kubectl is required under CI: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	return path
}

// kubectl runs one kubectl binary against one server, with a HOME of its
// own so no discovery cache or kuberc is shared with the user or another
// test.
type kubectl struct {
	bin        string
	kubeconfig string
	home       string
	env        []string // added to the environment kubectl inherits
}

func newKubectl(t *testing.T, bin string, s *server) *kubectl {
	return &kubectl{bin: bin, kubeconfig: s.kubeconfig, home: t.TempDir()}
}

// result is what one kubectl command did.
type result struct {
	args           []string
	stdout, stderr string
	err            error
}

func (r result) String() string {
	return fmt.Sprintf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.err, r.stdout, r.stderr)
}

func (k *kubectl) command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"--kubeconfig", k.kubeconfig}, args...)
	cmd := exec.CommandContext(ctx, k.bin, full...)
	env := []string{"HOME=" + k.home}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HOME" || name == "KUBECONFIG" || strings.HasPrefix(name, "KUBECTL_") {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, k.env...)
	cmd.WaitDelay = time.Second
	return cmd
}

// run runs kubectl to completion, bounded by kubectlTimeout.
func (k *kubectl) run(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), kubectlTimeout)
	defer cancel()
	var stdout, stderr strings.Builder
	cmd := k.command(ctx, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (timed out after %v)", err, kubectlTimeout)
	}
	return result{args: args, stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// ok runs kubectl and fails the test unless it succeeds; it returns stdout.
func (k *kubectl) ok(t *testing.T, args ...string) string {
	t.Helper()
	r := k.run(t, args...)
	if r.err != nil {
		t.Fatal(r)
	}
	return r.stdout
}

// fails runs kubectl and fails the test if it succeeds; it returns stderr.
func (k *kubectl) fails(t *testing.T, args ...string) string {
	t.Helper()
	r := k.run(t, args...)
	if r.err == nil {
		t.Fatalf("succeeded, want an error: %v", r)
	}
	var exit *exec.ExitError
	if !errors.As(r.err, &exit) {
		t.Fatalf("did not run to an exit code: %v", r)
	}
	return r.stderr
}

// getJSON runs `kubectl get ARGS -o json` and decodes the result.
func (k *kubectl) getJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out := k.ok(t, append(append([]string{"get"}, args...), "-o", "json")...)
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("kubectl get %v -o json: %v\n%s", args, err, out)
	}
	return obj
}

// yamlMatches checks that kubectl's -o yaml of args shows obj, the
// same command's -o json.
func (k *kubectl) yamlMatches(t *testing.T, obj map[string]any, args ...string) {
	t.Helper()
	asJSON, err := yaml.YAMLToJSON([]byte(k.ok(t, append(args, "-o", "yaml")...)))
	if err != nil {
		t.Fatalf("-o yaml: %v", err)
	}
	var fromYAML map[string]any
	if err := json.Unmarshal(asJSON, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromYAML, obj) {
		t.Errorf("-o yaml differs from -o json:\n yaml %v\n json %v", fromYAML, obj)
	}
}

// createFile writes manifest to a file and runs `kubectl create -f` on it.
func (k *kubectl) createFile(t *testing.T, manifest string) string {
	t.Helper()
	return k.ok(t, "create", "-f", writeFile(t, "manifest.yaml", manifest))
}

// background is a kubectl left running, such as a watch.
type background struct {
	res    result
	cancel context.CancelFunc
	lines  chan string // stdout, line by line; closed at EOF
	seen   []string    // lines taken from lines so far
	done   chan struct{}
	stderr *logBuffer
}

// start runs kubectl in the background for at most timeout; the test's
// cleanup ends it.
func (k *kubectl) start(t *testing.T, timeout time.Duration, args ...string) *background {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	b := &background{
		res:    result{args: args},
		cancel: cancel,
		lines:  make(chan string, 100),
		done:   make(chan struct{}),
		stderr: newLogBuffer(),
	}
	cmd := k.command(ctx, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(b.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case b.lines <- sc.Text():
			case <-ctx.Done(): // being stopped: nobody reads any more
			}
		}
	})
	go func() {
		wg.Wait() // Wait closes the pipe: read it all first
		b.res.err = cmd.Wait()
		b.res.stderr = b.stderr.String()
		close(b.done)
	}()
	t.Cleanup(b.stop)
	return b
}

// stop ends the command and waits for it.
func (b *background) stop() {
	b.cancel()
	<-b.done
}

// stillRunning fails the test if the command ends within d. Showing that
// something does not happen needs some wait; keep d short.
func (b *background) stillRunning(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-b.done:
		t.Fatalf("kubectl %s exited (%v), want it still running; stderr:\n%s", strings.Join(b.res.args, " "), b.res.err, b.res.stderr)
	case <-time.After(d):
	}
}

// waitExit waits up to eventTimeout for the command to end by itself and
// returns its result, stdout holding every line it printed.
func (b *background) waitExit(t *testing.T) result {
	t.Helper()
	timeout := time.After(eventTimeout)
	for {
		select {
		case line, ok := <-b.lines:
			if ok {
				b.seen = append(b.seen, line)
				continue
			}
			select {
			case <-b.done:
				r := b.res
				r.stdout = strings.Join(b.seen, "\n")
				return r
			case <-timeout:
			}
		case <-timeout:
		}
		t.Fatalf("kubectl %s still running after %v; printed so far:\n%s\nstderr:\n%s",
			strings.Join(b.res.args, " "), eventTimeout, strings.Join(b.seen, "\n"), b.stderr.String())
	}
}

// nextLine returns the fields of the next line on stdout, waiting up to
// eventTimeout for it.
func (b *background) nextLine(t *testing.T) []string {
	t.Helper()
	select {
	case line, ok := <-b.lines:
		if !ok {
			select {
			case <-b.done:
				t.Fatalf("kubectl %s ended (%v) before printing another line; printed:\n%s\nstderr:\n%s",
					strings.Join(b.res.args, " "), b.res.err, strings.Join(b.seen, "\n"), b.stderr.String())
			case <-time.After(eventTimeout):
				t.Fatalf("kubectl %s closed stdout without exiting", strings.Join(b.res.args, " "))
			}
		}
		b.seen = append(b.seen, line)
		return strings.Fields(line)
	case <-time.After(eventTimeout):
		t.Fatalf("kubectl %s printed no further line within %v; printed:\n%s\nstderr:\n%s",
			strings.Join(b.res.args, " "), eventTimeout, strings.Join(b.seen, "\n"), b.stderr.String())
	}
	panic("unreachable")
}

// waitLine reads stdout until a line whose fields start with want, up to
// eventTimeout, and returns that line's fields; it skips other lines.
func (b *background) waitLine(t *testing.T, want ...string) []string {
	t.Helper()
	deadline := time.Now().Add(eventTimeout)
	for {
		f := b.nextLine(t)
		if len(f) >= len(want) && slices.Equal(f[:len(want)], want) {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl %s printed no line starting %q within %v; printed:\n%s",
				strings.Join(b.res.args, " "), want, eventTimeout, strings.Join(b.seen, "\n"))
		}
	}
}

// ---------------------------------------------------------------------------
// Reading kubectl's output.

// table is kubectl's column output: a header and rows of cells, each row
// keyed by column name.
type table struct {
	header []string
	rows   []map[string]string
}

// parseTable splits kubectl's tabwriter output into cells by the header's
// column offsets, so empty cells (such as a missing SHORTNAMES) stay empty.
func parseTable(t *testing.T, out string) table {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
		t.Fatalf("no table in kubectl output:\n%s", out)
	}
	head := lines[0]
	var starts []int
	for i := 0; i < len(head); i++ {
		if head[i] != ' ' && (i == 0 || (i >= 2 && head[i-1] == ' ' && head[i-2] == ' ')) {
			starts = append(starts, i)
		}
	}
	cell := func(line string, i int) string {
		from := starts[i]
		if from >= len(line) {
			return ""
		}
		to := len(line)
		if i+1 < len(starts) && starts[i+1] < to {
			to = starts[i+1]
		}
		return strings.TrimSpace(line[from:to])
	}
	var tb table
	for i := range starts {
		tb.header = append(tb.header, cell(head, i))
	}
	for _, line := range lines[1:] {
		row := map[string]string{}
		for i, name := range tb.header {
			row[name] = cell(line, i)
		}
		tb.rows = append(tb.rows, row)
	}
	return tb
}

// row returns the row whose cells include every key=value of match.
func (tb table) row(match map[string]string) (map[string]string, bool) {
	for _, r := range tb.rows {
		ok := true
		for k, v := range match {
			if r[k] != v {
				ok = false
				break
			}
		}
		if ok {
			return r, true
		}
	}
	return nil, false
}

// field walks obj along a dotted path of map keys.
func field(obj map[string]any, path string) any {
	var cur any = obj
	for key := range strings.SplitSeq(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[key]
	}
	return cur
}

// str is field as a string ("" when absent or not a string).
func str(obj map[string]any, path string) string {
	s, _ := field(obj, path).(string)
	return s
}

// names splits `-o name` output into sorted names.
func names(out string) []string {
	f := strings.Fields(out)
	slices.Sort(f)
	return f
}

// writeFile writes data to a fresh file in the test's temp dir.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// isYoungAge tells whether an AGE cell is in seconds, as for something
// just created.
func isYoungAge(age string) bool {
	if len(age) < 2 || !strings.HasSuffix(age, "s") {
		return false
	}
	for _, c := range age[:len(age)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

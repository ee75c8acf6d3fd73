package perf_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// idleWait is how long the server sits idle before its memory is read.
const idleWait = 2 * time.Second

// BenchmarkIdleRSS builds the setpoint binary, starts `setpoint server
// --storage bolt` in a fresh data directory, waits for its ready line and
// then idleWait, and reads the process's memory from /proc: rss-MB is
// VmRSS (the target is below 50 MB), hwm-MB the peak RSS so far (VmHWM).
// ns/op is one start, from exec to the ready line on stderr (the idle
// wait and the stop are not timed); the memory figures are the largest
// over the ops.
func BenchmarkIdleRSS(b *testing.B) {
	requireBench(b)
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	bin := filepath.Join(b.TempDir(), "setpoint")
	gobin := "go"
	if p, err := exec.LookPath("go"); err == nil {
		gobin = p
	}
	build := exec.Command(gobin, "build", "-o", bin, "github.com/setpoint-dev/setpoint/cmd/setpoint")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}

	var rss, hwm float64
	for b.Loop() {
		r, h := idleServer(b, bin)
		rss, hwm = max(rss, r), max(hwm, h)
		b.StartTimer()
	}
	b.ReportMetric(rss, "rss-MB")
	b.ReportMetric(hwm, "hwm-MB")
}

// idleServer runs one server to ready, stops the benchmark timer, lets
// the server idle, reads its memory in MB and stops it with SIGTERM.
func idleServer(b *testing.B, bin string) (rssMB, hwmMB float64) {
	b.Helper()
	dir := b.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "server", "--data-dir", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0", "--storage", "bolt")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan struct{})
	var logTail []string
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if len(logTail) < 50 {
				logTail = append(logTail, line)
			}
			if strings.Contains(line, "setpoint API server ready") {
				close(ready)
				break
			}
		}
		// Keep draining so the server never blocks on its log.
		for sc.Scan() {
		}
		exited <- cmd.Wait()
	}()
	select {
	case <-ready:
	case err := <-exited:
		b.Fatalf("server exited before ready: %v\n%s", err, strings.Join(logTail, "\n"))
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		b.Fatalf("server not ready in 30s\n%s", strings.Join(logTail, "\n"))
	}
	b.StopTimer()
	time.Sleep(idleWait)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	rssMB, hwmMB = procMB(b, status, "VmRSS:"), procMB(b, status, "VmHWM:")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			b.Errorf("server exited with %v after SIGTERM", err)
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		b.Error("server did not stop within 15s of SIGTERM")
	}
	return rssMB, hwmMB
}

// procMB reads a "Name:   1234 kB" line of /proc/<pid>/status in MB.
func procMB(b *testing.B, status []byte, name string) float64 {
	b.Helper()
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, name); ok {
			f := strings.Fields(rest)
			if len(f) != 2 || f[1] != "kB" {
				b.Fatalf("unexpected %q", line)
			}
			kb, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatalf("no %s in /proc status", name)
	return 0
}

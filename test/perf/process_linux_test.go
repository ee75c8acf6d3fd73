package perf_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// serverProcess is `setpoint server` running as a child process, so that
// its CPU and memory are its own and not the benchmark's; or another
// server already running, measured over all its processes (for one,
// kube-apiserver, etcd, kube-scheduler and kwok).
type serverProcess struct {
	pids   []int
	config *rest.Config
}

// readyLine is the line the server logs once it serves, with the
// kubeconfig it wrote.
var readyLine = regexp.MustCompile(`msg="setpoint API server ready".*\bkubeconfig=("(?:[^"\\]|\\.)*"|\S+)`)

// buildSetpoint builds the setpoint binary into the benchmark's
// temporary directory.
func buildSetpoint(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "setpoint")
	build := exec.Command("go", "build", "-o", bin, "github.com/setpoint-dev/setpoint/cmd/setpoint")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServerProcess runs `bin server --storage memory` with args on a
// free loopback port until the benchmark ends (SIGTERM, then a kill), and
// returns once it logged that it is ready. The child dies with the test
// binary.
func startServerProcess(b *testing.B, bin string, args ...string) *serverProcess {
	b.Helper()
	dir := b.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"server", "--storage", "memory", "--data-dir", dir, "--listen", "127.0.0.1:0"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan string, 1)
	var logTail []string
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if len(logTail) < 50 {
				logTail = append(logTail, line)
			}
			if m := readyLine.FindStringSubmatch(line); m != nil {
				path := m[1]
				if uq, err := strconv.Unquote(path); err == nil {
					path = uq
				}
				ready <- path
				break
			}
		}
		for sc.Scan() { // keep draining so the server never blocks on its log
		}
		exited <- cmd.Wait()
	}()
	b.Cleanup(func() {
		cancel()
		<-exited
	})
	var kubeconfig string
	select {
	case kubeconfig = <-ready:
	case err := <-exited:
		b.Fatalf("server exited before ready: %v\n%s", err, strings.Join(logTail, "\n"))
	case <-time.After(60 * time.Second):
		b.Fatalf("server not ready in 60s\n%s", strings.Join(logTail, "\n"))
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS = -1 // the benchmark measures the server, not a client-side limiter
	return &serverProcess{pids: []int{cmd.Process.Pid}, config: cfg}
}

// clockTick is the unit of CPU times in /proc (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// processCPU is the CPU time (user + system) process pid ("self" for
// this one) has used, from /proc/<pid>/stat.
func processCPU(b *testing.B, pid string) time.Duration {
	b.Helper()
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	// The command name is in parentheses and may hold spaces; after it
	// come state (field 3) ... utime (14) and stime (15).
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("parsing /proc/%s/stat: %q", pid, s)
	}
	return time.Duration(utime+stime) * clockTick
}

// machineCPU is the whole machine's CPU time since boot, busy (all but
// idle and iowait) and total, summed over its CPUs, from /proc/stat.
func machineCPU(b *testing.B) (busy, total time.Duration) {
	b.Helper()
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		b.Fatal(err)
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		b.Fatalf("unexpected /proc/stat line %q", line)
	}
	// user nice system idle iowait irq softirq steal (guest time is
	// already inside user and nice).
	for i, v := range f[1:min(len(f), 9)] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatalf("parsing /proc/stat: %q", line)
		}
		total += time.Duration(n) * clockTick
		if i != 3 && i != 4 {
			busy += time.Duration(n) * clockTick
		}
	}
	return busy, total
}

// cpuMeter measures, over an interval, the server's CPU, the benchmark
// process's, and the machine's; on a shared machine the share the others
// took says how far the figures can be trusted.
type cpuMeter struct {
	server                 *serverProcess
	start                  time.Time
	srv, self, busy, total time.Duration
}

func startCPUMeter(b *testing.B, s *serverProcess) *cpuMeter {
	b.Helper()
	m := &cpuMeter{server: s, start: time.Now()}
	m.srv, m.self = s.cpu(b), processCPU(b, "self")
	m.busy, m.total = machineCPU(b)
	return m
}

// cpuReport is what a cpuMeter measured.
type cpuReport struct {
	wall, server, self time.Duration
	// othersFrac is the share of the machine's CPU time (all CPUs) that
	// processes other than the server and the benchmark used.
	othersFrac float64
}

func (m *cpuMeter) stop(b *testing.B) cpuReport {
	b.Helper()
	srv, self := m.server.cpu(b), processCPU(b, "self")
	busy, total := machineCPU(b)
	r := cpuReport{wall: time.Since(m.start), server: srv - m.srv, self: self - m.self}
	if dt := total - m.total; dt > 0 {
		others := (busy - m.busy) - r.server - r.self
		r.othersFrac = max(float64(others)/float64(dt), 0)
	}
	return r
}

// peakRSS is the server's peak resident memory so far (VmHWM), in MB.
// For several processes it is the sum of their peaks, which may not have
// come at the same moment: an upper bound.
func (s *serverProcess) peakRSS(b *testing.B) float64 {
	b.Helper()
	var mb float64
	for _, pid := range s.pids {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			b.Fatal(err)
		}
		mb += procMB(b, status, "VmHWM:")
	}
	return mb
}

// cpu is the CPU time the server's processes have used.
func (s *serverProcess) cpu(b *testing.B) time.Duration {
	b.Helper()
	var d time.Duration
	for _, pid := range s.pids {
		d += processCPU(b, strconv.Itoa(pid))
	}
	return d
}

// runningServer is a server started outside the benchmark: its
// kubeconfig and the PIDs of its processes, comma-separated.
func runningServer(b *testing.B, kubeconfig, pids string) *serverProcess {
	b.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS = -1
	s := &serverProcess{config: cfg}
	for _, f := range strings.Split(pids, ",") {
		pid, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("-perf.pids: %q is not a PID", f)
		}
		s.pids = append(s.pids, pid)
	}
	return s
}

package bench

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The failover benchmark's lease timing, the same for both runtimes.
// The defaults are both runtimes' defaults.
var (
	failoverLease = flag.Duration("failover-lease", 15*time.Second, "BenchmarkFailover: LeaseDuration")
	failoverRenew = flag.Duration("failover-renew", 10*time.Second, "BenchmarkFailover: RenewDeadline")
	failoverRetry = flag.Duration("failover-retry", 2*time.Second, "BenchmarkFailover: RetryPeriod")
)

// failoverFoos is how many Foos the failover operators reconcile; the
// new leader's first reconcile is that of one of them.
const failoverFoos = 100

// BenchmarkFailover measures how long an operator with leader election
// is without a working leader. Per op and per runtime (controller-runtime
// first, then Setpoint), three operator processes (the test binary run
// as a child, see failoverChild) take turns on a fresh Lease:
//
//  1. A starts and leads; once it has reconciled, B starts, and runs
//     for 2 RetryPeriods + 0.5 s, so it has seen A renew;
//  2. kill: A gets SIGKILL, and the clock runs until B's first
//     reconcile (B must wait for the lease to expire: about
//     LeaseDuration, by design);
//  3. C starts and settles the same way; term: B gets SIGTERM (it
//     stops and releases the lease), and the clock runs until C's first
//     reconcile; exit is how long B took to exit.
//
// Times come from the operators' wall clocks (same machine). A new
// leader's informers start when it is elected (both runtimes do that),
// so the figure includes listing the 100 Foos. controller-runtime runs
// with LeaderElectionReleaseOnCancel, or the term case would wait for
// the lease to expire; Setpoint's manager always releases.
func BenchmarkFailover(b *testing.B) {
	name := fmt.Sprintf("lease%v-renew%v-retry%v", *failoverLease, *failoverRenew, *failoverRetry)
	b.Run(name, func(b *testing.B) {
		_, kubeconfig, c := fooServer(b)
		const ns = "failover"
		ctx := b.Context()
		if err := ensureNamespace(ctx, c, ns); err != nil {
			b.Fatal(err)
		}
		if err := createFoos(ctx, c, ns, failoverFoos); err != nil {
			b.Fatal(err)
		}
		// Leave no Foos for the other benchmarks' operators, which
		// watch every namespace.
		defer func() {
			if err := deleteFoos(context.WithoutCancel(ctx), c, ns); err != nil {
				b.Error(err)
			}
		}()
		var sum [2]failoverRun
		for range b.N {
			for i, impl := range operatorImpls {
				r := runFailover(b, kubeconfig, ns, impl.name)
				b.Logf("%s: kill %.0f ms (elected after %.0f), term %.0f ms (elected after %.0f), exit %.0f ms",
					impl.name, r.killMS, r.killElectedMS, r.termMS, r.termElectedMS, r.exitMS)
				sum[i].add(r)
			}
		}
		nf := float64(b.N)
		for _, m := range []struct {
			unit string
			get  func(failoverRun) float64
		}{
			{"kill-ms", func(r failoverRun) float64 { return r.killMS }},
			{"term-ms", func(r failoverRun) float64 { return r.termMS }},
			{"exit-ms", func(r failoverRun) float64 { return r.exitMS }},
			{"start-ms", func(r failoverRun) float64 {
				return (r.killMS - r.killElectedMS + r.termMS - r.termElectedMS) / 2
			}},
		} {
			cr, sp := m.get(sum[0])/nf, m.get(sum[1])/nf
			b.ReportMetric(cr, "controller-runtime-"+m.unit)
			b.ReportMetric(sp, "setpoint-"+m.unit)
			recordVersus(b, "controller-runtime", m.unit, cr, sp)
		}
		b.ReportMetric(failoverLease.Seconds(), "lease-s")
	})
}

// failoverRun is what one runtime's failover run measured (ms).
type failoverRun struct {
	killMS, termMS, exitMS float64
	// When the new leader was elected: the rest of killMS and termMS
	// (start-ms, the mean of both) is the runtime starting its
	// controller, its informers' sync and the first trip through the
	// queue.
	killElectedMS, termElectedMS float64
}

func (s *failoverRun) add(o failoverRun) {
	s.killMS += o.killMS
	s.termMS += o.termMS
	s.exitMS += o.exitMS
	s.killElectedMS += o.killElectedMS
	s.termElectedMS += o.termElectedMS
}

var failoverSeq int

// runFailover runs the protocol of BenchmarkFailover for impl.
func runFailover(b *testing.B, kubeconfig, ns, impl string) failoverRun {
	b.Helper()
	failoverSeq++
	lease := fmt.Sprintf("failover-%s-%d", impl, failoverSeq)
	settle := 2**failoverRetry + 500*time.Millisecond
	long := *failoverLease + time.Minute
	start := func(id string) *operatorProcess {
		p := startOperatorProcess(b, impl, kubeconfig, lease, ns, id)
		b.Cleanup(p.kill)
		return p
	}
	a := start("a")
	a.wait(b, "reconciled", long)
	bb := start("b")
	bb.wait(b, "started", time.Minute)
	time.Sleep(settle)

	var r failoverRun
	tKill := time.Now()
	a.signal(b, syscall.SIGKILL)
	r.killMS = ms(bb.wait(b, "reconciled", long).Sub(tKill))
	r.killElectedMS = ms(bb.wait(b, "elected", time.Second).Sub(tKill))

	c := start("c")
	c.wait(b, "started", time.Minute)
	time.Sleep(settle)
	tTerm := time.Now()
	bb.signal(b, syscall.SIGTERM)
	r.termMS = ms(c.wait(b, "reconciled", long).Sub(tTerm))
	r.termElectedMS = ms(c.wait(b, "elected", time.Second).Sub(tTerm))
	r.exitMS = ms(bb.waitExit(b, time.Minute).Sub(tTerm))

	c.signal(b, syscall.SIGTERM)
	c.waitExit(b, time.Minute)
	a.waitExit(b, time.Minute)
	return r
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// failoverChildEnv names the runtime a failover operator process runs;
// see failoverChild.
const failoverChildEnv = "SETPOINT_BENCH_FAILOVER_OPERATOR"

// operatorProcess is a failover operator: the test binary run as a child.
type operatorProcess struct {
	name   string
	cmd    *exec.Cmd
	stderr *syncWriter
	mu     sync.Mutex
	seen   map[string]time.Time // what it said, when (its wall clock)
	said   chan struct{}        // pulsed on each line
	exited chan struct{}
	exitAt time.Time
}

func startOperatorProcess(b *testing.B, impl, kubeconfig, lease, ns, id string) *operatorProcess {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(),
		failoverChildEnv+"="+impl,
		"BENCH_FAILOVER_KUBECONFIG="+kubeconfig,
		"BENCH_FAILOVER_LEASE="+lease,
		"BENCH_FAILOVER_NAMESPACE="+ns,
		"BENCH_FAILOVER_IDENTITY="+id,
		"BENCH_FAILOVER_DURATIONS="+fmt.Sprintf("%v,%v,%v", *failoverLease, *failoverRenew, *failoverRetry),
	)
	p := &operatorProcess{name: impl + "/" + id, cmd: cmd, stderr: &syncWriter{w: &strings.Builder{}},
		seen: map[string]time.Time{}, said: make(chan struct{}, 1), exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = dieWithParent()
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			what, ts, ok := strings.Cut(sc.Text(), " ")
			ns, err := strconv.ParseInt(ts, 10, 64)
			if !ok || err != nil {
				continue
			}
			p.mu.Lock()
			if _, dup := p.seen[what]; !dup {
				p.seen[what] = time.Unix(0, ns)
			}
			p.mu.Unlock()
			select {
			case p.said <- struct{}{}:
			default:
			}
		}
		_ = cmd.Wait()
		p.mu.Lock()
		p.exitAt = time.Now()
		p.mu.Unlock()
		close(p.exited)
	}()
	return p
}

// wait returns when the process first said what.
func (p *operatorProcess) wait(b *testing.B, what string, timeout time.Duration) time.Time {
	b.Helper()
	deadline := time.After(timeout)
	for {
		p.mu.Lock()
		t, ok := p.seen[what]
		p.mu.Unlock()
		if ok {
			return t
		}
		select {
		case <-p.said:
		case <-p.exited:
			p.mu.Lock()
			t, ok := p.seen[what]
			p.mu.Unlock()
			if ok {
				return t
			}
			b.Fatalf("%s exited before saying %q: %s", p.name, what, p.stderr.String())
		case <-deadline:
			b.Fatalf("%s did not say %q within %v: %s", p.name, what, timeout, p.stderr.String())
		}
	}
}

func (p *operatorProcess) signal(b *testing.B, sig syscall.Signal) {
	b.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		b.Fatalf("signalling %s: %v", p.name, err)
	}
}

// waitExit returns when the process has exited.
func (p *operatorProcess) waitExit(b *testing.B, timeout time.Duration) time.Time {
	b.Helper()
	select {
	case <-p.exited:
	case <-time.After(timeout):
		b.Fatalf("%s did not exit within %v: %s", p.name, timeout, p.stderr.String())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitAt
}

// kill ends the process if it still runs.
func (p *operatorProcess) kill() {
	select {
	case <-p.exited:
	default:
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// failoverChild runs the test binary as a failover operator: the runtime
// failoverChildEnv names, with the Foo controller, under leader election
// on the lease the environment names. It prints "started", "elected",
// "reconciled" (the first reconcile) and "stopped", each followed by its
// wall-clock time in Unix nanoseconds, and stops on SIGTERM. It returns
// the exit code.
func failoverChild() int {
	impl := os.Getenv(failoverChildEnv)
	var mu sync.Mutex
	say := func(what string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf("%s %d\n", what, time.Now().UnixNano())
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "failover operator %s: %v\n", impl, err)
		return 1
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("BENCH_FAILOVER_KUBECONFIG"))
	if err != nil {
		return fail(err)
	}
	unlimited(cfg)
	var ds [3]time.Duration
	for i, s := range strings.Split(os.Getenv("BENCH_FAILOVER_DURATIONS"), ",") {
		if i >= len(ds) {
			break
		}
		if ds[i], err = time.ParseDuration(s); err != nil {
			return fail(err)
		}
	}
	le := electionOptions{
		id: os.Getenv("BENCH_FAILOVER_LEASE"), namespace: os.Getenv("BENCH_FAILOVER_NAMESPACE"),
		identity:      os.Getenv("BENCH_FAILOVER_IDENTITY"),
		leaseDuration: ds[0], renewDeadline: ds[1], retryPeriod: ds[2],
	}
	var newOp func(*rest.Config, electionOptions, *reconcileStats) (*operator, error)
	for _, i := range operatorImpls {
		if i.name == impl {
			newOp = i.new
		}
	}
	if newOp == nil {
		return fail(fmt.Errorf("no runtime %q", impl))
	}
	op, err := newOp(cfg, le, &reconcileStats{onFirst: func() { say("reconciled") }})
	if err != nil {
		return fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	go func() {
		select {
		case <-op.elected:
			say("elected")
		case <-ctx.Done():
		}
	}()
	say("started")
	if err := op.start(ctx); err != nil {
		return fail(err)
	}
	say("stopped")
	return 0
}

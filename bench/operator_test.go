package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	crlog "sigs.k8s.io/controller-runtime/pkg/log"
	crmanager "sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/finalizer"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// operatorFoos is how many Foos BenchmarkOperator makes ready.
var operatorFoos = flag.Int("operator-foos", 10_000, "how many Foos BenchmarkOperator makes ready")

// operatorProfile, when set, is a directory where each operator run
// writes the test process's CPU profile during the timed part:
// <implementation>-<run>.pprof.
var operatorProfile = flag.String("operator-cpuprofile", "", "BenchmarkOperator: write each run's CPU profile to this directory")

// operatorWorkers is how many reconciles run at once, for both runtimes:
// controller-runtime's MaxConcurrentReconciles, Setpoint's Workers.
const operatorWorkers = 4

// notBarRequeue is when a Foo whose spec.value is not "bar" is looked at
// again. No Foo of the benchmarks takes that path.
const notBarRequeue = 10 * time.Second

// readyCondition is the condition both reconcilers want on f.
func readyCondition(f *Foo) metav1.Condition {
	if f.Spec.Value == "bar" {
		return metav1.Condition{Type: fooReady, Status: metav1.ConditionTrue, Reason: "FooIsBar",
			Message: "spec.value is bar", ObservedGeneration: f.Generation}
	}
	return metav1.Condition{Type: fooReady, Status: metav1.ConditionUnknown, Reason: "FooNotBar",
		Message: "spec.value is not bar", ObservedGeneration: f.Generation}
}

// reconcileStats counts a reconciler's calls and failed calls, and tells
// of the first call (the failover benchmark's operator prints it).
type reconcileStats struct {
	calls, errors atomic.Int64
	onFirst       func()
}

func (s *reconcileStats) call() {
	if s.calls.Add(1) == 1 && s.onFirst != nil {
		s.onFirst()
	}
}

func (s *reconcileStats) result(err error) {
	if err != nil {
		s.errors.Add(1)
	}
}

// setpointFoo is the Foo reconciler written for Setpoint: read the Foo
// from the cache, and let finalizer.Reconcile add the finalizer (a
// resourceVersion-conditional patch) before Apply sets the condition.
type setpointFoo struct {
	c     client.Interface
	stats *reconcileStats
}

func (r *setpointFoo) Reconcile(ctx context.Context, req reconcile.Request) (res reconcile.Result, err error) {
	r.stats.call()
	defer func() { r.stats.result(err) }()
	var foo Foo
	if err := r.c.Get(ctx, req.NamespacedName, &foo); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	return finalizer.Reconcile(ctx, r.c, &foo, fooFinalizer, finalizer.Handler[*Foo]{
		Apply: func(ctx context.Context, foo *Foo) (reconcile.Result, error) {
			cond := readyCondition(foo)
			if meta.SetStatusCondition(&foo.Status.Conditions, cond) {
				if err := r.c.UpdateStatus(ctx, foo); err != nil {
					return reconcile.Result{}, err
				}
			}
			if cond.Status != metav1.ConditionTrue {
				return reconcile.Result{RequeueAfter: notBarRequeue}, nil
			}
			return reconcile.Result{}, nil
		},
		Cleanup: func(context.Context, *Foo) (reconcile.Result, error) {
			return reconcile.Result{}, nil // nothing outside the object to undo
		},
	})
}

// crFoo is the same reconciler written the way kubebuilder scaffolds
// one for controller-runtime: Get from the cache, AddFinalizer and
// Update, then set the condition and Status().Update.
type crFoo struct {
	c     crclient.Client
	stats *reconcileStats
}

func (r *crFoo) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	r.stats.call()
	defer func() { r.stats.result(err) }()
	var foo Foo
	if err := r.c.Get(ctx, req.NamespacedName, &foo); err != nil {
		return ctrl.Result{}, crclient.IgnoreNotFound(err)
	}
	if !foo.DeletionTimestamp.IsZero() {
		if controllerutil.ContainsFinalizer(&foo, fooFinalizer) {
			// Nothing outside the object to undo.
			controllerutil.RemoveFinalizer(&foo, fooFinalizer)
			if err := r.c.Update(ctx, &foo); err != nil {
				return ctrl.Result{}, err
			}
		}
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(&foo, fooFinalizer) {
		if err := r.c.Update(ctx, &foo); err != nil {
			return ctrl.Result{}, err
		}
	}
	cond := readyCondition(&foo)
	if meta.SetStatusCondition(&foo.Status.Conditions, cond) {
		if err := r.c.Status().Update(ctx, &foo); err != nil {
			return ctrl.Result{}, err
		}
	}
	if cond.Status != metav1.ConditionTrue {
		return ctrl.Result{RequeueAfter: notBarRequeue}, nil
	}
	return ctrl.Result{}, nil
}

// electionOptions is the leader election of the failover benchmark's
// operators; the zero value runs without.
type electionOptions struct {
	id, namespace, identity                   string
	leaseDuration, renewDeadline, retryPeriod time.Duration
}

// operator is a built operator: start runs it until ctx ends and
// returns when it has stopped.
type operator struct {
	start   func(ctx context.Context) error
	elected <-chan struct{}
	stats   *reconcileStats
}

// newSetpointOperator builds a Setpoint manager with the Foo controller.
// Everything not set here is the manager's default.
func newSetpointOperator(cfg *rest.Config, le electionOptions, stats *reconcileStats) (*operator, error) {
	opts := manager.Options{
		Client: client.Options{Scheme: fooScheme},
		Logger: discardLogger,
	}
	if le.id != "" {
		opts.LeaderElection, opts.LeaderElectionID, opts.LeaderElectionNamespace = true, le.id, le.namespace
		opts.Identity = le.identity
		opts.LeaseDuration, opts.RenewDeadline, opts.RetryPeriod = le.leaseDuration, le.renewDeadline, le.retryPeriod
	}
	m, err := manager.New(cfg, opts)
	if err != nil {
		return nil, err
	}
	r := &setpointFoo{c: m.Client(), stats: stats}
	if _, err := m.NewController(r, controller.Options{Name: "foo", Workers: operatorWorkers}, controller.For[*Foo]()); err != nil {
		return nil, err
	}
	return &operator{start: m.Start, elected: m.Elected(), stats: stats}, nil
}

// newControllerRuntimeOperator builds a controller-runtime manager with
// the Foo controller. Beyond the defaults: no metrics server (Setpoint's
// manager serves none by default either), no controller name check (the
// benchmark builds one controller per run in one process), and with
// leader election the lease is released on stop, as Setpoint's manager
// always does (controller-runtime's default keeps it until it expires).
func newControllerRuntimeOperator(cfg *rest.Config, le electionOptions, stats *reconcileStats) (*operator, error) {
	// Logs go nowhere, as Setpoint's do (its manager gets a discarding
	// logger).
	setCRLogger.Do(func() { crlog.SetLogger(logr.Discard()) })
	opts := crmanager.Options{
		Scheme:  fooScheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		Logger:  logr.Discard(),
	}
	if le.id != "" {
		opts.LeaderElection, opts.LeaderElectionID, opts.LeaderElectionNamespace = true, le.id, le.namespace
		opts.LeaderElectionReleaseOnCancel = true
		opts.LeaseDuration, opts.RenewDeadline, opts.RetryPeriod = &le.leaseDuration, &le.renewDeadline, &le.retryPeriod
	}
	m, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return nil, err
	}
	r := &crFoo{c: m.GetClient(), stats: stats}
	err = ctrl.NewControllerManagedBy(m).For(&Foo{}).Named("foo").
		WithOptions(crcontroller.Options{MaxConcurrentReconciles: operatorWorkers, SkipNameValidation: ptr.To(true)}).
		Complete(r)
	if err != nil {
		return nil, err
	}
	return &operator{start: m.Start, elected: m.Elected(), stats: stats}, nil
}

var setCRLogger sync.Once

// operatorImpls are the runtimes compared, in the order each op runs
// them.
var operatorImpls = []struct {
	name string
	new  func(*rest.Config, electionOptions, *reconcileStats) (*operator, error)
}{
	{"controller-runtime", newControllerRuntimeOperator},
	{"setpoint", newSetpointOperator},
}

// BenchmarkOperator is the end-to-end comparison: N Foos exist (all with
// spec.value "bar"), an operator starts, and the op ends when the last
// Foo has turned Ready. Each op runs controller-runtime's operator, then
// Setpoint's, on the same server and the same Foos: namespace, names and
// load are identical, and every Foo is deleted between runs so each run
// starts from N fresh Foos. Run with -benchtime 1x.
//
// Protocol, per implementation:
//  1. create N Foos in namespace "operator" with 32 parallel creators;
//  2. start a watch of the Foos from the resourceVersion after the last
//     create, in the test process, counting Foos that turn Ready=True;
//  3. t0: start the operator (caches start empty: the initial-sync
//     case, every Foo reaches the reconciler as an initial add);
//  4. stop the clock when the watch has seen all N Ready;
//  5. stop the operator, delete the Foos.
//
// Reported: wall time (t0 to all Ready) and the test process's CPU time
// meanwhile (user + system, GC included: operator and the watch, the
// watch's share being equal for both) per implementation, and their
// ratios (Setpoint / controller-runtime; < 1 means Setpoint takes less),
// the server process's CPU time over the same span, and the reconciles
// per Foo until then. The server is a separate process: its CPU is not
// in the test process's, but its work shares the machine's cores with the
// operator's, and is the same for both but for controller-runtime's
// failed (Conflict) status updates.
func BenchmarkOperator(b *testing.B) {
	for _, n := range []int{*operatorFoos} {
		b.Run(fmt.Sprintf("n%d", n), func(b *testing.B) {
			cfg, _, c := fooServer(b)
			const ns = "operator"
			if err := ensureNamespace(b.Context(), c, ns); err != nil {
				b.Fatal(err)
			}
			var sum [2]operatorRun
			for range b.N {
				for i, impl := range operatorImpls {
					r := runOperator(b, cfg, c, ns, n, impl.name, impl.new)
					b.Logf("%s: %.0f ms, cpu %.0f ms, server cpu %.0f ms, %d reconciles, %d errors",
						impl.name, r.ms, r.cpuMS, r.serverCPUMS, r.reconciles, r.errors)
					sum[i].add(r)
				}
			}
			nf := float64(b.N)
			for i, impl := range operatorImpls {
				b.ReportMetric(sum[i].ms/nf, impl.name+"-ms")
				b.ReportMetric(sum[i].cpuMS/nf, impl.name+"-cpu-ms")
				b.ReportMetric(sum[i].serverCPUMS/nf, impl.name+"-server-cpu-ms")
				b.ReportMetric(float64(sum[i].reconciles)/nf/float64(n), impl.name+"-reconciles/foo")
			}
			b.ReportMetric(sum[1].ms/sum[0].ms, "ratio")
			b.ReportMetric(sum[1].cpuMS/sum[0].cpuMS, "cpu-ratio")
			recordVersus(b, "controller-runtime", "ms", sum[0].ms/nf, sum[1].ms/nf)
			recordVersus(b, "controller-runtime", "cpu-ms", sum[0].cpuMS/nf, sum[1].cpuMS/nf)
			recordVersus(b, "controller-runtime", "server-cpu-ms", sum[0].serverCPUMS/nf, sum[1].serverCPUMS/nf)
		})
	}
}

// operatorRun is what one operator run measured.
type operatorRun struct {
	ms, cpuMS, serverCPUMS float64
	reconciles, errors     int64
}

func (s *operatorRun) add(o operatorRun) {
	s.ms += o.ms
	s.cpuMS += o.cpuMS
	s.serverCPUMS += o.serverCPUMS
	s.reconciles += o.reconciles
	s.errors += o.errors
}

// runOperator runs one implementation through the protocol of
// BenchmarkOperator.
func runOperator(b *testing.B, cfg *rest.Config, c *client.Client, ns string, n int, name string,
	newOp func(*rest.Config, electionOptions, *reconcileStats) (*operator, error)) operatorRun {
	b.Helper()
	ctx := b.Context()
	if err := createFoos(ctx, c, ns, n); err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := deleteFoos(context.WithoutCancel(ctx), c, ns); err != nil {
			b.Error(err)
		}
	}()
	rv, err := listRV(ctx, c, ns)
	if err != nil {
		b.Fatal(err)
	}
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	w, err := watchReady(wctx, c, ns, rv, n)
	if err != nil {
		b.Fatal(err)
	}
	stats := &reconcileStats{}
	op, err := newOp(cfg, electionOptions{}, stats)
	if err != nil {
		b.Fatal(err)
	}
	opCtx, stop := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	// The previous run's garbage is collected now, not on this run's
	// account.
	runtime.GC()
	stopProfile := startProfile(b, name)
	cpu0, srv0 := processCPU(b), serverCPU()
	t0 := time.Now()
	go func() { stopped <- op.start(opCtx) }()
	var opErr error
	select {
	case <-w.done:
	case err := <-stopped:
		opErr = fmt.Errorf("operator stopped early: %v", err)
		stopped <- nil
	case <-time.After(10 * time.Minute):
		opErr = errors.New("not all Foos Ready within 10 minutes")
	}
	d := time.Since(t0)
	cpu, srv := processCPU(b)-cpu0, serverCPU()-srv0
	stopProfile()
	r := operatorRun{
		ms: ms(d), cpuMS: ms(cpu), serverCPUMS: ms(srv),
		reconciles: stats.calls.Load(), errors: stats.errors.Load(),
	}
	stop()
	if err := <-stopped; err != nil && opErr == nil {
		opErr = fmt.Errorf("operator: %w", err)
	}
	if opErr != nil {
		b.Fatalf("%v (%d of %d Ready)", opErr, w.count.Load(), n)
	}
	if w.err != nil {
		b.Fatalf("watching for Ready: %v", w.err)
	}
	return r
}

var profileSeq int

// startProfile starts a CPU profile for -operator-cpuprofile, and returns
// the function that stops it.
func startProfile(b *testing.B, name string) func() {
	if *operatorProfile == "" {
		return func() {}
	}
	profileSeq++
	f, err := os.Create(filepath.Join(*operatorProfile, fmt.Sprintf("%s-%d.pprof", name, profileSeq)))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Error(err)
		}
	}
}

package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	foov1 "github.com/setpoint-dev/setpoint/examples/foo/api/v1"
	"github.com/setpoint-dev/setpoint/pkg/client"
)

// Foo is the custom resource the operator benchmarks reconcile: the Foo
// example's own type (foo.example.com/v1, spec.value and
// status.conditions).
type (
	Foo     = foov1.Foo
	FooSpec = foov1.FooSpec
	FooList = foov1.FooList
)

var fooGV = foov1.GroupVersion

const (
	// fooFinalizer is the finalizer both reconcilers put on each Foo.
	fooFinalizer = "foo.example.com/cleanup"
	// fooReady is the condition both reconcilers set.
	fooReady = "Ready"
)

// newFooScheme is the scheme both runtimes use: Setpoint client's
// built-in kinds (core/v1, coordination.k8s.io/v1 for leases, ...) and
// Foo.
func newFooScheme() *runtime.Scheme {
	s := client.NewScheme()
	if err := foov1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}

var fooScheme = newFooScheme()

var discardLogger = slog.New(slog.DiscardHandler)

// atExit runs when the benchmarks are done, in TestMain.
var atExit []func()

// fooCRD is the CustomResourceDefinition of Foo, with the status
// subresource.
func fooCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "foos.foo.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: fooGV.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "foos", Singular: "foo", Kind: "Foo", ListKind: "FooList",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: fooGV.Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
				},
				Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object",
						Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"spec": {
								Type: "object",
								Properties: map[string]apiextensionsv1.JSONSchemaProps{
									"value": {Type: "string"},
								},
							},
							"status": {
								Type:                   "object",
								XPreserveUnknownFields: &preserve,
							},
						},
					},
				},
			}},
		},
	}
}

// isReady reports whether f has Ready=True.
func isReady(f *Foo) bool {
	return meta.IsStatusConditionTrue(f.Status.Conditions, fooReady)
}

// opServer is the server the operator and failover benchmarks share:
// one `setpoint server --storage memory` child process for the whole
// run, with the Foo CRD.
var opServer struct {
	sync.Mutex
	cfg        *rest.Config
	kubeconfig string
	c          *client.Client
	pid        int
}

// serverCPU is the CPU time the shared server process has used.
func serverCPU() time.Duration {
	opServer.Lock()
	defer opServer.Unlock()
	return childCPU(opServer.pid)
}

// fooServer returns a config for the shared server (client-side rate
// limit off), the path of its kubeconfig, and a Setpoint client with
// fooScheme for setting up and checking.
func fooServer(b *testing.B) (*rest.Config, string, *client.Client) {
	b.Helper()
	opServer.Lock()
	defer opServer.Unlock()
	if opServer.cfg != nil {
		return rest.CopyConfig(opServer.cfg), opServer.kubeconfig, opServer.c
	}
	// Not b.TempDir: the server and its kubeconfig, which the failover
	// benchmark's operator processes read, outlive this benchmark.
	dir, err := os.MkdirTemp("", "setpoint-bench-")
	if err != nil {
		b.Fatal(err)
	}
	atExit = append(atExit, func() { _ = os.RemoveAll(dir) })
	cfg, kubeconfig, pid := startServer(b, dir)
	deadline := time.Now().Add(30 * time.Second)
	unlimited(cfg)
	c, err := client.New(cfg, client.Options{Scheme: fooScheme, Logger: discardLogger})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Create(ctx, fooCRD()); err != nil && !client.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	// Wait until the kind is served.
	for {
		err := c.List(ctx, &FooList{}, client.Limit(1))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("Foo not served: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	opServer.cfg, opServer.kubeconfig, opServer.c, opServer.pid = cfg, kubeconfig, c, pid
	return rest.CopyConfig(cfg), kubeconfig, c
}

// unlimited turns off the client-side rate limit of cfg, for both
// runtimes alike: rest.Config's default (QPS 5, or controller-runtime's
// 20 in some setups) would make the limiter, not the runtime, the thing
// measured. QPS -1 is what controller-runtime's GetConfig sets (rely on
// the server's priority and fairness); Setpoint's client reads any QPS
// <= 0 as no limit.
func unlimited(cfg *rest.Config) {
	cfg.QPS, cfg.Burst = -1, 0
}

// ensureNamespace creates namespace ns unless it exists.
func ensureNamespace(ctx context.Context, c *client.Client, ns string) error {
	err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !client.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// parallel runs f(i) for i in [0, n) on 32 goroutines and returns the
// first error.
func parallel(n int, f func(i int) error) error {
	work := make(chan int)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range work {
				if err := f(i); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func fooName(i int) string { return fmt.Sprintf("foo-%06d", i) }

// createFoos creates n Foos with spec.value "bar" in ns.
func createFoos(ctx context.Context, c *client.Client, ns string, n int) error {
	return parallel(n, func(i int) error {
		f := &Foo{ObjectMeta: metav1.ObjectMeta{Name: fooName(i), Namespace: ns}, Spec: FooSpec{Value: "bar"}}
		if err := c.Create(ctx, f); err != nil && !client.IsAlreadyExists(err) {
			return err
		}
		return nil
	})
}

// deleteFoos deletes every Foo in ns, taking off the finalizers the
// reconcilers put on them (no operator runs then), and waits until they
// are gone.
func deleteFoos(ctx context.Context, c *client.Client, ns string) error {
	if err := c.DeleteAllOf(ctx, &Foo{}, client.InNamespace(ns)); err != nil {
		return fmt.Errorf("deleting Foos: %w", err)
	}
	var list FooList
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return err
	}
	err := parallel(len(list.Items), func(i int) error {
		f := &list.Items[i]
		if len(f.Finalizers) == 0 {
			return nil
		}
		err := c.Patch(ctx, f, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
		if err != nil && !client.IsNotFound(err) {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("removing finalizers: %w", err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if err := c.List(ctx, &list, client.InNamespace(ns), client.Limit(1)); err != nil {
			return err
		}
		if len(list.Items) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("Foos in %s still there after a minute", ns)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readyWatcher counts the Foos of a namespace that turned Ready=True,
// from a watch that starts at a given resourceVersion: it sees every
// change the operator makes, and nothing before.
type readyWatcher struct {
	n     int
	ready map[string]bool
	count atomic.Int64 // len(ready), for other goroutines
	done  chan struct{}
	err   error // valid once done is closed
}

// watchReady starts counting the Foos of ns that turn Ready, from
// resourceVersion rv on; done is closed once n have.
func watchReady(ctx context.Context, c *client.Client, ns, rv string, n int) (*readyWatcher, error) {
	w := &readyWatcher{n: n, ready: make(map[string]bool, n), done: make(chan struct{})}
	wi, err := c.Watch(ctx, &FooList{}, client.InNamespace(ns), client.ResourceVersion(rv))
	if err != nil {
		return nil, err
	}
	go w.run(ctx, c, ns, rv, wi)
	return w, nil
}

func (w *readyWatcher) run(ctx context.Context, c *client.Client, ns, rv string, wi watch.Interface) {
	defer close(w.done)
	for {
		for ev := range wi.ResultChan() {
			if ev.Type == watch.Error {
				w.err = client.EventError(ev)
				wi.Stop()
				return
			}
			f, ok := ev.Object.(*Foo)
			if !ok {
				continue
			}
			rv = f.ResourceVersion
			if ev.Type == watch.Modified && isReady(f) && !w.ready[f.Name] {
				w.ready[f.Name] = true
				w.count.Add(1)
				if len(w.ready) == w.n {
					wi.Stop()
					return
				}
			}
		}
		// The server ended the stream: go on where it stopped.
		if ctx.Err() != nil {
			w.err = ctx.Err()
			return
		}
		var err error
		if wi, err = c.Watch(ctx, &FooList{}, client.InNamespace(ns), client.ResourceVersion(rv)); err != nil {
			w.err = err
			return
		}
	}
}

// listRV is the resourceVersion of the Foos of ns now.
func listRV(ctx context.Context, c *client.Client, ns string) (string, error) {
	var list FooList
	if err := c.List(ctx, &list, client.InNamespace(ns), client.Limit(1)); err != nil {
		return "", err
	}
	return list.ResourceVersion, nil
}

package e2e_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/setpoint-dev/setpoint/internal/etcdtest"
)

// replicaCRD is a namespaced CRD created through one replica and used
// through the other.
const replicaCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.replicas.example.com
spec:
  group: replicas.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// TestReplicasOnEtcd runs two servers on one etcd with one PKI: each
// serves what the other writes at once, with the same resourceVersions,
// one kubeconfig reaches both, a CRD made through one is served by the
// other, the built-in controllers run on exactly one, and they move to
// the other when it is killed.
func TestReplicasOnEtcd(t *testing.T) {
	bin := kubectlPath(t)
	cluster := etcdtest.Start(t, 1)
	pki := t.TempDir()
	a, b := etcdReplica(t, cluster, pki), etcdReplica(t, cluster, pki)
	ka, kb := newKubectl(t, bin, a), newKubectl(t, bin, b)

	ka.ok(t, "create", "configmap", "shared", "--from-literal=k=v")
	rv := func(k *kubectl) string {
		return k.ok(t, "get", "configmap", "shared", "-o", "jsonpath={.metadata.resourceVersion}")
	}
	if ra, rb := rv(ka), rv(kb); ra == "" || ra != rb {
		t.Fatalf("resourceVersion %q through a, %q through b", ra, rb)
	}
	if got := kb.ok(t, "get", "configmaps", "-o", "name"); !strings.Contains(got, "configmap/shared") {
		t.Fatalf("list through b right after the create through a:\n%s", got)
	}
	// a's kubeconfig works against b: the CA and token are shared.
	if got := ka.ok(t, "--server", b.url, "get", "configmap", "shared", "-o", "name"); got != "configmap/shared\n" {
		t.Fatalf("a's kubeconfig against b: %q", got)
	}

	ka.createFile(t, replicaCRD)
	ka.ok(t, "wait", "--for=condition=Established", "crd/widgets.replicas.example.com", "--timeout=30s")
	widget := writeFile(t, "widget.yaml", "apiVersion: replicas.example.com/v1\nkind: Widget\nmetadata: {name: w1}\n")
	// b learns of the CRD through its watch, a moment after a made it.
	eventually(t, "a Widget created through b", func() (string, bool) {
		r := kb.run(t, "create", "-f", widget)
		return r.String(), r.err == nil
	})
	if got := ka.ok(t, "get", "widgets", "-o", "name"); got != "widget.replicas.example.com/w1\n" {
		t.Fatalf("widgets through a: %q", got)
	}

	leader, other := a, b
	eventually(t, "one replica leading the controllers", func() (string, bool) {
		la, lb := leads(a), leads(b)
		if la && lb {
			t.Fatal("both replicas lead the built-in controllers")
		}
		if lb {
			leader, other = b, a
		}
		return "no leader", la || lb
	})
	// Killed, the leader cannot stop cleanly; its cleanup has nothing to do.
	leader.stopOnce.Do(leader.kill)
	eventually(t, "the other replica taking over", func() (string, bool) { return "not yet", leads(other) })
	if got := kb.run(t, "--server", other.url, "get", "configmap", "shared", "-o", "name"); got.err != nil || got.stdout != "configmap/shared\n" {
		t.Fatalf("the survivor after the kill: %v", got)
	}
}

// etcdReplica starts a server on cluster with its credentials in pki.
func etcdReplica(t *testing.T, cluster *etcdtest.Cluster, pki string, args ...string) *server {
	return startServer(t, serverConfig{
		dataDir: filepath.Join(t.TempDir(), "data"),
		storage: "etcd",
		args:    append([]string{"--etcd-servers", strings.Join(cluster.Endpoints(), ","), "--pki-dir", pki}, args...),
	})
}

// clientsetFor is a client-go clientset for s, unthrottled: client-go's
// default 5 requests/s would pace the tests.
func clientsetFor(t *testing.T, s *server) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// startInformers starts factory, waits for inf to sync, and stops the
// factory when the test ends.
func startInformers(t *testing.T, factory informers.SharedInformerFactory, inf cache.SharedIndexInformer) {
	t.Helper()
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() {
		close(stop)
		factory.Shutdown()
	})
	if !cache.WaitForCacheSync(t.Context().Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
}

// leads reports whether s has taken the built-in controllers' lease.
func leads(s *server) bool { return strings.Contains(s.log.String(), `msg="became the leader"`) }

// TestReplicaKilledInformerSeesNoGap writes ConfigMaps through one
// replica while a client-go informer watches another; the first is
// killed part-way and the writes go on through the survivor. The
// informer sees every acknowledged create once, in resourceVersion
// order, and ends holding exactly what a list returns.
func TestReplicaKilledInformerSeesNoGap(t *testing.T) {
	cluster := etcdtest.Start(t, 1)
	pki := t.TempDir()
	a, b := etcdReplica(t, cluster, pki, "--nodes", "0"), etcdReplica(t, cluster, pki, "--nodes", "0")
	ca, cb := clientsetFor(t, a), clientsetFor(t, b)
	ctx := t.Context()
	const ns = "default"

	type seen struct {
		name string
		rv   int64
	}
	var mu sync.Mutex
	var adds []seen
	factory := informers.NewSharedInformerFactoryWithOptions(cb, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*corev1.ConfigMap)
			if !strings.HasPrefix(cm.Name, "gap-") {
				return
			}
			rv, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
			mu.Lock()
			adds = append(adds, seen{cm.Name, rv})
			mu.Unlock()
		},
	}); err != nil {
		t.Fatal(err)
	}
	startInformers(t, factory, inf)

	acked := map[string]int64{}
	through, killed := ca, false
	for i := range 400 {
		if i == 150 {
			a.stopOnce.Do(a.kill)
			through, killed = cb, true
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gap-%03d", i)}}
		got, err := through.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s through %s: %v", cm.Name, map[bool]string{false: "a", true: "b"}[killed], err)
		}
		acked[got.Name], _ = strconv.ParseInt(got.ResourceVersion, 10, 64)
	}
	eventually(t, "the informer seeing every create", func() (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("%d of %d adds", len(adds), len(acked)), len(adds) >= len(acked)
	})
	mu.Lock()
	defer mu.Unlock()
	var last int64
	names := map[string]bool{}
	for _, s := range adds {
		if s.rv <= last || names[s.name] {
			t.Fatalf("add of %s at %d after %d (seen before: %v): out of order or repeated", s.name, s.rv, last, names[s.name])
		}
		last, names[s.name] = s.rv, true
		if acked[s.name] != s.rv {
			t.Fatalf("add of %s at %d, created at %d", s.name, s.rv, acked[s.name])
		}
	}
	list, err := cb.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	for _, obj := range inf.GetStore().List() {
		held[obj.(*corev1.ConfigMap).Name] = true
	}
	if len(held) != len(list.Items) {
		t.Fatalf("informer holds %d ConfigMaps, the list %d", len(held), len(list.Items))
	}
	for _, cm := range list.Items {
		if !held[cm.Name] {
			t.Fatalf("informer lacks %s", cm.Name)
		}
	}
}

// TestEtcdDown stops every etcd member, of one and of three, under a
// running server with a client-go informer on it: requests fail with
// 503 or 504 in bounded time and /readyz fails; once etcd is back the server serves again,
// and the informer, whose watch the server kept, ends holding exactly
// what a list returns, the writes made after the outage included.
func TestEtcdDown(t *testing.T) {
	for _, members := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d members", members), func(t *testing.T) { testEtcdDown(t, members) })
	}
}

func testEtcdDown(t *testing.T, members int) {
	bin := kubectlPath(t)
	cluster := etcdtest.Start(t, members)
	s := etcdReplica(t, cluster, t.TempDir(), "--nodes", "0")
	k := newKubectl(t, bin, s)
	cs := clientsetFor(t, s)
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("default"))
	inf := factory.Core().V1().ConfigMaps().Informer()
	startInformers(t, factory, inf)
	for i := range 10 {
		k.ok(t, "create", "configmap", fmt.Sprintf("before-%d", i))
	}

	cluster.Stop()
	// The server is given 3 s to answer (kubectl's --request-timeout
	// would also end the wait on kubectl's side at the same moment).
	during := writeFile(t, "during.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"during"}}`)
	for _, args := range [][]string{
		{"get", "--raw", "/api/v1/namespaces/default/configmaps?timeout=3s"},
		{"create", "--raw", "/api/v1/namespaces/default/configmaps?timeout=3s", "-f", during},
	} {
		start := time.Now()
		r := k.run(t, args...)
		if r.err == nil {
			t.Fatalf("with etcd down: %v", r)
		}
		if !strings.Contains(r.stderr, "ServiceUnavailable") && !strings.Contains(r.stderr, "Timeout") && !strings.Contains(r.stderr, "timed out") {
			t.Fatalf("with etcd down, want a 503 or 504: %v", r)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("kubectl %s took %v to fail", strings.Join(args, " "), d)
		}
	}
	if r := k.run(t, "get", "--raw", "/readyz"); r.err == nil {
		t.Fatalf("/readyz with etcd down: %v", r)
	}
	if !strings.Contains(s.log.String(), "storage unreachable") {
		t.Fatalf("the server did not log that etcd is unreachable:\n%s", s.log.String())
	}

	cluster.Restart(t)
	eventually(t, "/readyz once etcd is back", func() (string, bool) {
		r := k.run(t, "get", "--raw", "/readyz")
		return r.String(), r.err == nil
	})
	for i := range 10 {
		k.ok(t, "create", "configmap", fmt.Sprintf("after-%d", i))
	}
	eventually(t, "the informer holding what a list returns", func() (string, bool) {
		list, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
		if err != nil {
			return err.Error(), false
		}
		held := map[string]bool{}
		for _, obj := range inf.GetStore().List() {
			held[obj.(*corev1.ConfigMap).Name] = true
		}
		for _, cm := range list.Items {
			if !held[cm.Name] {
				return "informer lacks " + cm.Name, false
			}
		}
		return fmt.Sprintf("informer %d, list %d", len(held), len(list.Items)), len(held) == len(list.Items) && held["after-9"]
	})
}

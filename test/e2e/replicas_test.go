package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

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
	replica := func() *server {
		return startServer(t, serverConfig{
			dataDir: filepath.Join(t.TempDir(), "data"),
			storage: "etcd",
			args:    []string{"--etcd-servers", strings.Join(cluster.Endpoints(), ","), "--pki-dir", pki},
		})
	}
	a, b := replica(), replica()
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

// leads reports whether s has taken the built-in controllers' lease.
func leads(s *server) bool { return strings.Contains(s.log.String(), `msg="became the leader"`) }

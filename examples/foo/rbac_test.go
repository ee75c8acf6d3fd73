package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/internal/processtest"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
)

// The operator's ServiceAccount, as config/rbac.yaml creates it.
const (
	saNamespace = "default"
	saName      = "foo-operator"
	saUser      = "system:serviceaccount:" + saNamespace + ":" + saName
)

// TestLeastPrivilege runs the operator as README.md's least-privilege
// section says: config/rbac.yaml applied, a ServiceAccount token in a
// file, a kubeconfig pointing at that file. It checks the rules are
// enough for the whole lifecycle, that the token file is read again when
// the token is replaced, and that a missing rule shows as kube's 403 in
// the operator's log and keeps /readyz failing until the rule is back.
func TestLeastPrivilege(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server and the example")
	}
	kubectlBin := processtest.KubectlPath(t)
	bins := processtest.Build(t, "./cmd/setpoint", "./examples/foo")
	setpointBin, fooBin := bins[0], bins[1]
	server, kubeconfig := processtest.StartServer(t, setpointBin)
	home := t.TempDir()
	k := &processtest.Kubectl{Bin: kubectlBin, Kubeconfig: kubeconfig, Home: home}

	k.OK(t, "apply", "-f", filepath.Join("config", "crd.yaml"), "-f", filepath.Join("config", "rbac.yaml"))
	k.OK(t, "wait", "--for=condition=established", "crd/foos.foo.example.com", "--timeout=30s")

	// Each token is bound to a Secret of its own, so that deleting the
	// Secret revokes it: that proves the operator moved to the next one.
	dir := t.TempDir()
	tokens := &tokenFile{k: k, path: filepath.Join(dir, saName+".token")}
	first := tokens.rotate(t, saName+"-token-1")

	apiServer := k.OK(t, "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}")
	ca := filepath.Join(filepath.Dir(kubeconfig), "pki", "ca.crt")
	sa := &processtest.Kubectl{Bin: kubectlBin, Kubeconfig: filepath.Join(dir, saName+".kubeconfig"), Home: home}
	sa.OK(t, "config", "set-cluster", "setpoint", "--server="+apiServer, "--certificate-authority="+ca, "--embed-certs")
	sa.OK(t, "config", "set", "users."+saName+".tokenFile", tokens.path)
	sa.OK(t, "config", "set-context", saName, "--cluster=setpoint", "--user="+saName)
	sa.OK(t, "config", "use-context", saName)
	if got := sa.OK(t, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); got != saUser {
		t.Fatalf("the operator's kubeconfig authenticates as %q, want %q", got, saUser)
	}

	startOperator := func(name string) (*processtest.Process, string) {
		t.Helper()
		healthAddr := processtest.FreeAddr(t)
		p := processtest.Start(t, name, fooBin, "--kubeconfig", sa.Kubeconfig,
			"--health-addr", healthAddr, "--metrics-addr", "127.0.0.1:0", "--requeue-after", "1s", "--leader-elect")
		return p, healthAddr
	}

	t.Run("granted", func(t *testing.T) {
		operator, healthAddr := startOperator("foo as " + saName)
		if err := operator.WaitOutput(t, `msg="starting workers"`); err != nil {
			t.Fatal(err)
		}
		// Every write of the lifecycle comes after the first token is
		// revoked: only a client that read the file again can make them.
		tokens.rotate(t, saName+"-token-2")
		k.OK(t, "delete", "secret", saName+"-token-1", "-n", saNamespace)
		anon := &processtest.Kubectl{Bin: kubectlBin, Kubeconfig: os.DevNull, Home: home}
		if out, err := anon.Run(t, "", "--server="+apiServer, "--certificate-authority="+ca, "--token="+first, "auth", "whoami"); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Fatalf("the first token after its Secret was deleted: %q, %v; want Unauthorized", out, err)
		}
		checkLifecycle(t, k, operator, healthAddr)
		operator.Stop(t)
	})

	t.Run("missing rule", func(t *testing.T) {
		// Without list and watch on ConfigMaps, the informer that the
		// controller's Owns source needs can never sync.
		if _, err := k.Run(t, clusterRoleWithout(t, "configmaps", "list", "watch"), "apply", "-f", "-"); err != nil {
			t.Fatal(err)
		}
		operator, healthAddr := startOperator("foo as " + saName + " without configmaps list, watch")
		forbidden := `configmaps is forbidden: User "` + saUser + `" cannot list resource "configmaps" in API group "" at the cluster scope`
		// slog's text handler quotes the error, escaping its quotes.
		quoted := strconv.Quote(forbidden)
		if err := operator.WaitOutput(t, quoted[1:len(quoted)-1]); err != nil {
			t.Fatal(err)
		}
		readyz := "http://" + healthAddr + "/readyz?verbose"
		envtest.Eventually(t, "/readyz to name the 403", func() error {
			if code, body := httpGet(t, readyz); code != http.StatusInternalServerError || !strings.Contains(body, forbidden) {
				return fmt.Errorf("/readyz: %d\n%s", code, body)
			}
			return nil
		})
		envtest.Consistently(t, "/readyz failing while the rule is missing", func() error {
			if code, body := httpGet(t, readyz); code == http.StatusOK {
				return fmt.Errorf("/readyz: %d\n%s", code, body)
			}
			return nil
		})

		// The rule back, the informer syncs at its next retry and the
		// controller starts, without a restart.
		k.OK(t, "apply", "-f", filepath.Join("config", "rbac.yaml"))
		envtest.Eventually(t, "/readyz once the rule is back", func() error {
			if code, body := httpGet(t, readyz); code != http.StatusOK {
				return fmt.Errorf("/readyz: %d\n%s", code, body)
			}
			return nil
		})
		checkLifecycle(t, k, operator, healthAddr)
		operator.Stop(t)
	})

	server.Stop(t)
}

// tokenFile is the operator's token file, replaced as the kubelet
// replaces a pod's projected token: a new file renamed over the old, so
// that a reader never sees it half written.
type tokenFile struct {
	k    *processtest.Kubectl
	path string
}

// rotate writes a new token for the operator's ServiceAccount, bound to
// a new Secret named secret, and returns it.
func (f *tokenFile) rotate(t *testing.T, secret string) string {
	t.Helper()
	f.k.OK(t, "create", "secret", "generic", secret, "-n", saNamespace)
	token := strings.TrimSpace(f.k.OK(t, "create", "token", saName, "-n", saNamespace,
		"--bound-object-kind=Secret", "--bound-object-name="+secret))
	tmp := f.path + ".new"
	if err := os.WriteFile(tmp, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		t.Fatal(err)
	}
	return token
}

// clusterRoleWithout is config/rbac.yaml's ClusterRole with verbs taken
// out of the rule on resource, as YAML.
func clusterRoleWithout(t *testing.T, resource string, verbs ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("config", "rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var role rbacv1.ClusterRole
		if err := dec.Decode(&role); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if role.Kind != "ClusterRole" {
			continue
		}
		removed := false
		for i, r := range role.Rules {
			if !slices.Contains(r.Resources, resource) {
				continue
			}
			kept := slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return slices.Contains(verbs, v) })
			removed = removed || len(kept) < len(r.Verbs)
			role.Rules[i].Verbs = kept
		}
		if !removed {
			t.Fatalf("ClusterRole %s has no rule on %s with verbs %v", role.Name, resource, verbs)
		}
		out, err := yaml.Marshal(&role)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	t.Fatal("config/rbac.yaml has no ClusterRole")
	return ""
}

// httpGet returns the status and body of a GET of url.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

package events_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestKubectlShowsEvents checks the shape users meet: `kubectl describe`
// finds the Events of an object (by field selector on involvedObject) and
// `kubectl get events` lists them with their count. Skipped without
// kubectl.
func TestKubectlShowsEvents(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	e := newEnv(t, nil)
	cm := e.configMap("web")
	stop := e.start()
	e.rec.Event(cm, corev1.EventTypeWarning, "SyncFailed", "cannot reach the backend")
	e.rec.Event(cm, corev1.EventTypeWarning, "SyncFailed", "cannot reach the backend")
	stop()

	kubeconfig := writeKubeconfig(t, e.srv)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(context.Background(), kubectl, append([]string{"--kubeconfig", kubeconfig}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	describe := run("describe", "configmap", "web", "-n", "default")
	if !strings.Contains(describe, "SyncFailed") || !strings.Contains(describe, "(x2 over") || !strings.Contains(describe, "widget-controller") {
		t.Errorf("kubectl describe shows no Event:\n%s", describe)
	}
	get := run("get", "events", "-n", "default", "-o", "custom-columns=REASON:.reason,COUNT:.count,OBJECT:.involvedObject.name")
	if !strings.Contains(get, "SyncFailed   2       web") {
		t.Errorf("kubectl get events:\n%s", get)
	}
}

func writeKubeconfig(t *testing.T, srv *apiservertest.Server) string {
	t.Helper()
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: test
  context: {cluster: test, user: admin}
current-context: test
`, srv.URL, base64.StdEncoding.EncodeToString(srv.Config.CAData), srv.Config.BearerToken)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

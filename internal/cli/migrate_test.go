package cli

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/internal/etcdtest"
)

// TestMigrate moves a server's bolt store into etcd and starts a server
// on etcd with the old credentials: it serves every object, at
// resourceVersions past the old server's, and a watch from an old one
// gets 410 Gone.
func TestMigrate(t *testing.T) {
	dir := t.TempDir()
	cs, stop := startServer(t, dir)
	lastRV := createConfigMaps(t, cs, "moved", 30)
	cluster := etcdtest.Start(t, 1)
	to := "etcd:" + strings.Join(cluster.Endpoints(), ",")

	var stdout, stderr bytes.Buffer
	if code := Run(t.Context(), []string{"migrate", "--from", "bolt:" + dir, "--to", to}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "stop the server first") {
		t.Errorf("migrate from a running server's store: exit %d, %q", code, stderr.String())
	}
	stop()
	stderr.Reset()
	if code := Run(t.Context(), []string{"migrate", "--from", "bolt:" + dir, "--to", to, "--etcd-prefix", "/moved"}, &stdout, &stderr); code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Migrated ") {
		t.Errorf("migrate printed %q", stdout.String())
	}
	if code := Run(t.Context(), []string{"migrate", "--from", "bolt:" + dir, "--to", to, "--etcd-prefix", "/moved"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "already holds keys") {
		t.Errorf("second migrate: exit %d, %q", code, stderr.String())
	}

	cs2, _ := startServer(t, t.TempDir(), "--storage", "etcd", "--etcd-servers", strings.Join(cluster.Endpoints(), ","),
		"--etcd-prefix", "/moved", "--pki-dir", filepath.Join(dir, "pki"))
	list, err := cs2.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old, _ := strconv.ParseInt(lastRV, 10, 64)
	moved := 0
	for _, cm := range list.Items {
		if strings.HasPrefix(cm.Name, "moved-") {
			moved++
		}
		if rv, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64); rv <= old {
			t.Errorf("%s has resourceVersion %d, not past the old server's %d", cm.Name, rv, old)
		}
	}
	if moved != 30 {
		t.Errorf("the server on etcd serves %d of the 30 configmaps", moved)
	}
	wantGone(t, cs2, lastRV)
}

func TestMigrateUsage(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStderr string
	}{
		{[]string{"migrate"}, 2, "Usage: setpoint migrate"},
		{[]string{"migrate", "--from", "etcd:x", "--to", "bolt:y"}, 2, "Usage: setpoint migrate"},
		{[]string{"migrate", "--from", "bolt:", "--to", "etcd:http://127.0.0.1:1"}, 2, "Usage: setpoint migrate"},
		{[]string{"migrate", "--from", "bolt:" + t.TempDir(), "--to", "etcd:http://127.0.0.1:1"}, 1, "no such file"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := Run(t.Context(), tt.args, &stdout, &stderr); got != tt.wantCode || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", got, stderr.String(), tt.wantCode, tt.wantStderr)
			}
		})
	}
}

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// startServer runs `setpoint server` in-process on dir until the test
// ends or the returned stop is called, and returns a clientset for it.
func startServer(t *testing.T, dir string, args ...string) (kubernetes.Interface, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	args = append([]string{"server", "--data-dir", dir, "--listen", "127.0.0.1:0", "--nodes", "0"}, args...)
	go func() { done <- Run(ctx, args, &bytes.Buffer{}, stderr) }()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(stderr.String(), "setpoint API server ready") {
		select {
		case code := <-done:
			cancel()
			t.Fatalf("server exited with %d before it was ready: %s", code, stderr.String())
		case <-deadline:
			cancel()
			t.Fatalf("server not ready within 30s: %s", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	var stopped bool
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("server exited with %d: %s", code, stderr.String())
		}
	}
	t.Cleanup(stop)
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, stop
}

func createConfigMaps(t *testing.T, cs kubernetes.Interface, prefix string, n int) string {
	t.Helper()
	var rv string
	for i := range n {
		cm, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)},
			Data:       map[string]string{"i": strconv.Itoa(i)},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rv = cm.ResourceVersion
	}
	return rv
}

func configMapNames(t *testing.T, cs kubernetes.Interface) []string {
	t.Helper()
	list, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cm := range list.Items {
		if cm.Name != "kube-root-ca.crt" {
			names = append(names, cm.Name)
		}
	}
	return names
}

// TestSnapshotSaveRestore saves a running server's store, writes more,
// restores the snapshot into a new data directory and checks that the
// server there holds the snapshot's objects, not the later ones, and
// that a watch from a revision the old server handed out gets 410 Gone.
func TestSnapshotSaveRestore(t *testing.T) {
	dir := t.TempDir()
	cs, stop := startServer(t, dir)
	createConfigMaps(t, cs, "before", 20)
	file := filepath.Join(t.TempDir(), "snap.db")
	var stdout, stderr bytes.Buffer
	if code := Run(t.Context(), []string{"snapshot", "save", "--kubeconfig", filepath.Join(dir, "kubeconfig"), file}, &stdout, &stderr); code != 0 {
		t.Fatalf("snapshot save: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Saved the store at revision") {
		t.Errorf("snapshot save printed %q", stdout.String())
	}
	lastRV := createConfigMaps(t, cs, "after", 5)
	stderr.Reset()
	if code := Run(t.Context(), []string{"snapshot", "save", "--data-dir", dir, file + "2"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "save through the server with --kubeconfig") {
		t.Errorf("offline save of a running server's store: exit %d, %q", code, stderr.String())
	}
	stop()

	restored := t.TempDir()
	stdout.Reset()
	if code := Run(t.Context(), []string{"snapshot", "restore", "--data-dir", restored, file}, &stdout, &stderr); code != 0 {
		t.Fatalf("snapshot restore: exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	if code := Run(t.Context(), []string{"snapshot", "restore", "--data-dir", restored, file}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "already there") {
		t.Errorf("restore over a store: exit %d, %q", code, stderr.String())
	}
	cs2, _ := startServer(t, restored)
	got := configMapNames(t, cs2)
	if len(got) != 20 || !strings.HasPrefix(got[0], "before-") || !strings.HasPrefix(got[19], "before-") {
		t.Errorf("restored configmaps %v, want the 20 made before the snapshot", got)
	}
	cm, err := cs2.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	newRV, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
	oldRV, _ := strconv.ParseInt(lastRV, 10, 64)
	if newRV <= oldRV+defaultBump/2 {
		t.Errorf("resourceVersion after restore %d, want past %d by the bump", newRV, oldRV)
	}
	wantGone(t, cs2, lastRV)
}

// wantGone checks that a watch from rv gets 410 Gone, which has a
// client-go reflector list again.
func wantGone(t *testing.T, cs kubernetes.Interface, rv string) {
	t.Helper()
	w, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{ResourceVersion: rv})
	if err == nil {
		ev := <-w.ResultChan()
		w.Stop()
		if ev.Type == watch.Error {
			err = apierrors.FromObject(ev.Object)
		}
	}
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Errorf("watch from resourceVersion %s: %v, want 410 Gone", rv, err)
	}
}

func TestSnapshotUsage(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "junk")
	if err := os.WriteFile(junk, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args       []string
		wantCode   int
		wantStderr string
	}{
		{[]string{"snapshot"}, 2, "Usage: setpoint snapshot save|restore"},
		{[]string{"snapshot", "save"}, 2, "Usage: setpoint snapshot save"},
		{[]string{"snapshot", "save", "--kubeconfig", "k", "--data-dir", "d", "f"}, 2, "not both"},
		{[]string{"snapshot", "save", "--data-dir", t.TempDir(), "f"}, 1, "no such file"},
		{[]string{"snapshot", "restore", "a", "b"}, 2, "Usage: setpoint snapshot restore"},
		{[]string{"snapshot", "restore", "--bump-revision", "-1", "f"}, 2, "must be 0 or more"},
		{[]string{"snapshot", "restore", "--data-dir", t.TempDir(), junk}, 1, "not a Setpoint bolt snapshot"},
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

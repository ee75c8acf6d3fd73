package e2e_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerCommand drives `setpoint server` itself: what it leaves on disk,
// what survives a restart, the memory backend, who may talk to it, and how
// it refuses bad flags.
func TestServerCommand(t *testing.T) {
	t.Run("first start creates the data directory", func(t *testing.T) {
		t.Parallel()
		dataDir := filepath.Join(t.TempDir(), "nested", "data")
		s := startServer(t, serverConfig{dataDir: dataDir})

		if want := filepath.Join(dataDir, "kubeconfig"); s.kubeconfig != want {
			t.Errorf("ready line kubeconfig=%s, want %s", s.kubeconfig, want)
		}
		for _, tc := range []struct {
			path    string
			dir     bool
			private bool // no access for group or others
		}{
			{path: "", dir: true, private: true},
			{path: "kubeconfig", private: true},
			{path: "pki/ca.crt"},
			{path: "setpoint.db"},
		} {
			fi, err := os.Stat(filepath.Join(dataDir, tc.path))
			if err != nil {
				t.Errorf("after first start: %v", err)
				continue
			}
			if fi.IsDir() != tc.dir {
				t.Errorf("%s: IsDir %v, want %v", fi.Name(), fi.IsDir(), tc.dir)
			}
			if tc.private && fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s: mode %v, want no access for group or others", fi.Name(), fi.Mode().Perm())
			}
			if !tc.dir && fi.Size() == 0 {
				t.Errorf("%s is empty", fi.Name())
			}
		}

		kc := readKubeconfig(t, s.kubeconfig)
		if kc.server != s.url {
			t.Errorf("kubeconfig server %q, want %q", kc.server, s.url)
		}
		caFile, err := os.ReadFile(filepath.Join(dataDir, "pki", "ca.crt"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(kc.caPEM, caFile) {
			t.Errorf("kubeconfig CA differs from pki/ca.crt")
		}
		block, _ := pem.Decode(caFile)
		if block == nil {
			t.Fatalf("pki/ca.crt holds no PEM block")
		}
		ca, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatalf("pki/ca.crt: %v", err)
		}
		if !ca.IsCA {
			t.Errorf("pki/ca.crt is not a CA certificate")
		}

		// The kubeconfig works as written.
		code, _, body := get(t, httpClient(t, kc.caPEM), kc.server, "/api/v1/namespaces", kc.token)
		if code != 200 || kindOf(body) != "NamespaceList" {
			t.Errorf("GET /api/v1/namespaces with the kubeconfig's token: %d %s, want 200 NamespaceList", code, body)
		}
	})

	t.Run("kubeconfig flag", func(t *testing.T) {
		t.Parallel()
		dataDir := filepath.Join(t.TempDir(), "data")
		kubeconfig := filepath.Join(t.TempDir(), "elsewhere", "admin.yaml")
		s := startServer(t, serverConfig{dataDir: dataDir, kubeconfig: kubeconfig})
		if s.kubeconfig != kubeconfig {
			t.Errorf("ready line kubeconfig=%s, want %s", s.kubeconfig, kubeconfig)
		}
		if kc := readKubeconfig(t, kubeconfig); kc.server != s.url {
			t.Errorf("kubeconfig server %q, want %q", kc.server, s.url)
		}
		if _, err := os.Stat(filepath.Join(dataDir, "kubeconfig")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("with --kubeconfig set, DIR/kubeconfig: %v, want it absent", err)
		}
	})

	t.Run("restart keeps data and credentials", func(t *testing.T) {
		t.Parallel()
		bin := kubectlPath(t)
		dataDir := filepath.Join(t.TempDir(), "data")

		first := startServer(t, serverConfig{dataDir: dataDir})
		kc1 := readKubeconfig(t, first.kubeconfig)
		k := newKubectl(t, bin, first)
		k.ok(t, "create", "namespace", "keep")
		k.createFile(t, configMapYAML("keep", "kept", map[string]string{"app": "e2e"}, map[string]string{"color": "blue"}))
		before := k.getJSON(t, "configmap", "kept", "-n", "keep")
		stopServer(t, first, syscall.SIGINT)

		second := startServer(t, serverConfig{dataDir: dataDir})
		k = newKubectl(t, bin, second)
		after := k.getJSON(t, "configmap", "kept", "-n", "keep")
		for _, path := range []string{"metadata.uid", "metadata.resourceVersion", "metadata.creationTimestamp", "data.color"} {
			if got, want := str(after, path), str(before, path); got != want || want == "" {
				t.Errorf("after restart %s = %q, want %q", path, got, want)
			}
		}

		kc2 := readKubeconfig(t, second.kubeconfig)
		if kc2.token != kc1.token {
			t.Errorf("restart changed the admin token")
		}
		if !bytes.Equal(kc2.caPEM, kc1.caPEM) {
			t.Errorf("restart changed the CA")
		}
		// The first kubeconfig's CA and token still reach the restarted
		// server (only the port differs).
		code, _, body := get(t, httpClient(t, kc1.caPEM), second.url, "/api/v1/namespaces/keep/configmaps/kept", kc1.token)
		if code != 200 || kindOf(body) != "ConfigMap" {
			t.Errorf("GET kept with the first kubeconfig's credentials: %d %s, want 200 ConfigMap", code, body)
		}

		// Writes after the restart continue the resourceVersion sequence
		// rather than starting it over.
		k.ok(t, "create", "configmap", "later", "-n", "keep", "--from-literal=a=b")
		later := k.getJSON(t, "configmap", "later", "-n", "keep")
		rvBefore, err1 := strconv.ParseUint(str(before, "metadata.resourceVersion"), 10, 64)
		rvLater, err2 := strconv.ParseUint(str(later, "metadata.resourceVersion"), 10, 64)
		if err1 == nil && err2 == nil && rvLater <= rvBefore {
			t.Errorf("resourceVersion after restart %d, want more than %d from before it", rvLater, rvBefore)
		}
	})

	t.Run("memory storage", func(t *testing.T) {
		t.Parallel()
		bin := kubectlPath(t)
		dataDir := filepath.Join(t.TempDir(), "data")

		s := startServer(t, serverConfig{dataDir: dataDir, storage: "memory"})
		if !strings.Contains(s.log.String(), "storage=memory") {
			t.Errorf("ready line does not say storage=memory:\n%s", s.log.String())
		}
		k := newKubectl(t, bin, s)
		k.ok(t, "create", "namespace", "mem")
		k.ok(t, "create", "configmap", "volatile", "-n", "mem", "--from-literal=a=b")
		if got := str(k.getJSON(t, "configmap", "volatile", "-n", "mem"), "data.a"); got != "b" {
			t.Errorf("data.a = %q, want %q", got, "b")
		}
		if _, err := os.Stat(filepath.Join(dataDir, "setpoint.db")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("memory storage: setpoint.db: %v, want no database file", err)
		}
		stopServer(t, s, syscall.SIGTERM)

		// Nothing outlives the process; the credentials do.
		s = startServer(t, serverConfig{dataDir: dataDir, storage: "memory"})
		k = newKubectl(t, bin, s)
		stderr := k.fails(t, "get", "namespace", "mem")
		if !strings.Contains(stderr, `namespaces "mem" not found`) {
			t.Errorf("after restarting memory storage: %s, want NotFound", stderr)
		}
	})

	t.Run("authentication", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, serverConfig{dataDir: filepath.Join(t.TempDir(), "data")})
		kc := readKubeconfig(t, s.kubeconfig)
		client := httpClient(t, kc.caPEM)
		for _, tc := range []struct {
			name     string
			path     string
			token    string
			wantCode int
			wantBody string // exact text body; empty means a JSON body of wantKind
			wantKind string
		}{
			{name: "list without token", path: "/api/v1/namespaces", wantCode: 401, wantKind: "Status"},
			{name: "list with wrong token", path: "/api/v1/namespaces", token: strings.Repeat("x", 43), wantCode: 401, wantKind: "Status"},
			{name: "version without token", path: "/version", wantCode: 401, wantKind: "Status"},
			{name: "discovery without token", path: "/apis", wantCode: 401, wantKind: "Status"},
			{name: "unknown path without token", path: "/no/such/path", wantCode: 401, wantKind: "Status"},
			{name: "readyz without token", path: "/readyz", wantCode: 200, wantBody: "ok"},
			{name: "livez without token", path: "/livez", wantCode: 200, wantBody: "ok"},
			{name: "healthz without token", path: "/healthz", wantCode: 200, wantBody: "ok"},
			{name: "list with token", path: "/api/v1/namespaces", token: kc.token, wantCode: 200, wantKind: "NamespaceList"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				code, ctype, body := get(t, client, s.url, tc.path, tc.token)
				if code != tc.wantCode {
					t.Fatalf("GET %s: code %d, want %d; body %s", tc.path, code, tc.wantCode, body)
				}
				if tc.wantKind == "" {
					if got := string(body); got != tc.wantBody {
						t.Errorf("GET %s: body %q, want %q", tc.path, got, tc.wantBody)
					}
					return
				}
				if !strings.HasPrefix(ctype, "application/json") {
					t.Errorf("GET %s: Content-Type %q, want application/json", tc.path, ctype)
				}
				if got := kindOf(body); got != tc.wantKind {
					t.Errorf("GET %s: kind %q, want %q; body %s", tc.path, got, tc.wantKind, body)
				}
				if tc.wantKind != "Status" {
					return
				}
				var st struct {
					Kind, APIVersion, Status, Reason string
					Code                             int
				}
				if err := json.Unmarshal(body, &st); err != nil {
					t.Fatalf("GET %s: %v; body %s", tc.path, err, body)
				}
				want := struct {
					Kind, APIVersion, Status, Reason string
					Code                             int
				}{"Status", "v1", "Failure", "Unauthorized", 401}
				if st != want {
					t.Errorf("GET %s: Status %+v, want %+v", tc.path, st, want)
				}
			})
		}
	})

	t.Run("bad usage exits 2", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name       string
			args       []string // after `server --data-dir DIR --listen 127.0.0.1:0`, or whole when noServer
			noServer   bool
			wantStderr string
		}{
			{name: "unknown storage", args: []string{"--storage", "nope"}, wantStderr: "nope"},
			{name: "unknown flag", args: []string{"--no-such-flag"}, wantStderr: "no-such-flag"},
			{name: "stray argument", args: []string{"stray"}, wantStderr: "stray"},
			{name: "unknown command", args: []string{"no-such-command"}, noServer: true, wantStderr: "no-such-command"},
			{name: "no command", noServer: true, wantStderr: "Usage"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				dataDir := filepath.Join(t.TempDir(), "data")
				args := tc.args
				if !tc.noServer {
					args = append([]string{"server", "--data-dir", dataDir, "--listen", "127.0.0.1:0"}, tc.args...)
				}
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				var stderr bytes.Buffer
				cmd := exec.CommandContext(ctx, setpointBin, args...)
				cmd.Stderr = &stderr
				cmd.SysProcAttr = childProcAttr()
				err := cmd.Run()
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 2 {
					t.Errorf("setpoint %s: %v, want exit status 2; stderr:\n%s", strings.Join(args, " "), err, stderr.String())
				}
				if !strings.Contains(stderr.String(), tc.wantStderr) {
					t.Errorf("setpoint %s: stderr does not mention %q:\n%s", strings.Join(args, " "), tc.wantStderr, stderr.String())
				}
				if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("setpoint %s: data dir: %v, want it not created", strings.Join(args, " "), err)
				}
			})
		}
	})
}

// kindOf returns the kind of a JSON object ("" if body is not one).
func kindOf(body []byte) string {
	var obj struct{ Kind string }
	if json.Unmarshal(body, &obj) != nil {
		return ""
	}
	return obj.Kind
}

// configMapYAML is a ConfigMap manifest.
func configMapYAML(namespace, name string, labels, data map[string]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: " + namespace + "\n")
	if len(labels) > 0 {
		b.WriteString("  labels:\n")
		for _, k := range sortedKeys(labels) {
			b.WriteString("    " + k + ": " + strconv.Quote(labels[k]) + "\n")
		}
	}
	if len(data) > 0 {
		b.WriteString("data:\n")
		for _, k := range sortedKeys(data) {
			b.WriteString("  " + k + ": " + strconv.Quote(data[k]) + "\n")
		}
	}
	return b.String()
}

package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
)

// runCLI runs the setpoint command line with args.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(t.Context(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// minted is what a kubeconfig written by `setpoint kubeconfig` holds.
type minted struct {
	cfg     *clientcmdapi.Config
	cluster *clientcmdapi.Cluster
	user    *clientcmdapi.AuthInfo
	cert    *x509.Certificate
}

func parseMinted(t *testing.T, data []byte) minted {
	t.Helper()
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatalf("kubeconfig does not load: %v\n%s", err, data)
	}
	kctx := cfg.Contexts[cfg.CurrentContext]
	if kctx == nil {
		t.Fatalf("no current context in\n%s", data)
	}
	m := minted{cfg: cfg, cluster: cfg.Clusters[kctx.Cluster], user: cfg.AuthInfos[kctx.AuthInfo]}
	if m.cluster == nil || m.user == nil {
		t.Fatalf("context %q names a missing cluster or user", cfg.CurrentContext)
	}
	block, _ := pem.Decode(m.user.ClientCertificateData)
	if block == nil {
		t.Fatalf("user %q has no client certificate", kctx.AuthInfo)
	}
	if m.cert, err = x509.ParseCertificate(block.Bytes); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestKubeconfigCommand(t *testing.T) {
	dir := t.TempDir()
	creds, err := credentials.LoadOrCreate(credentials.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	auth := creds.Authenticator()
	// A server elsewhere keeps its credentials in a --pki-dir and wrote
	// its admin kubeconfig into its data directory.
	shared := t.TempDir()
	sharedPKI := filepath.Join(shared, "pki-elsewhere")
	sharedCreds, err := credentials.LoadOrCreate(credentials.Options{PKIDir: sharedPKI})
	if err != nil {
		t.Fatal(err)
	}
	if err := credentials.WriteKubeconfig(filepath.Join(shared, "kubeconfig"), "https://10.0.0.7:7443", sharedCreds.CAPEM, sharedCreds.AdminToken); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name        string
		args        []string
		wantServer  string
		wantCA      []byte
		wantUser    string
		wantGroups  []string
		wantContext string
		wantValid   time.Duration
	}{
		{
			name:       "user and groups",
			args:       []string{"--data-dir", dir, "--user", "alice", "--group", "dev", "--group", "ops"},
			wantServer: defaultServerURL, wantCA: creds.CAPEM,
			wantUser: "alice", wantGroups: []string{"dev", "ops"}, wantContext: "alice@setpoint",
			wantValid: credentials.DefaultClientCertValidity,
		},
		{
			name:       "admin with an explicit server and expiration",
			args:       []string{"--data-dir", dir, "--user", "root", "--group", "system:masters", "--server", "https://setpoint.example:6443", "--expiration", "2h"},
			wantServer: "https://setpoint.example:6443", wantCA: creds.CAPEM,
			wantUser: "root", wantGroups: []string{"system:masters"}, wantContext: "root@setpoint",
			wantValid: 2 * time.Hour,
		},
		{
			name:       "pki dir and the server URL from the data dir's kubeconfig",
			args:       []string{"--data-dir", shared, "--pki-dir", sharedPKI, "--user", "bob"},
			wantServer: "https://10.0.0.7:7443", wantCA: sharedCreds.CAPEM,
			wantUser: "bob", wantContext: "bob@setpoint",
			wantValid: credentials.DefaultClientCertValidity,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			code, stdout, stderr := runCLI(t, append([]string{"kubeconfig"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit code %d: %s", code, stderr)
			}
			m := parseMinted(t, []byte(stdout))
			if got := m.cluster.Server; got != tt.wantServer {
				t.Errorf("server %q, want %q", got, tt.wantServer)
			}
			if !bytes.Equal(m.cluster.CertificateAuthorityData, tt.wantCA) {
				t.Error("the kubeconfig's CA is not the server's")
			}
			if m.cfg.CurrentContext != tt.wantContext || m.cfg.Contexts[tt.wantContext].AuthInfo != tt.wantUser {
				t.Errorf("context %q with user %q, want %q with user %q", m.cfg.CurrentContext, m.cfg.Contexts[m.cfg.CurrentContext].AuthInfo, tt.wantContext, tt.wantUser)
			}
			if got := m.cert.Subject.CommonName; got != tt.wantUser {
				t.Errorf("common name %q, want %q", got, tt.wantUser)
			}
			if got := m.cert.Subject.Organization; !slices.Equal(got, tt.wantGroups) {
				t.Errorf("organizations %q, want %q", got, tt.wantGroups)
			}
			if got := m.cert.NotAfter.Sub(start); got < tt.wantValid-time.Second || got > tt.wantValid+time.Minute {
				t.Errorf("valid for %v, want %v", got, tt.wantValid)
			}
			if _, err := tls.X509KeyPair(m.user.ClientCertificateData, m.user.ClientKeyData); err != nil {
				t.Errorf("certificate and key do not pair: %v", err)
			}
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(tt.wantCA)
			if _, err := m.cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
				t.Errorf("certificate does not verify against the server's CA for client auth: %v", err)
			}
		})
	}

	t.Run("the server's authenticator accepts it", func(t *testing.T) {
		_, stdout, _ := runCLI(t, "kubeconfig", "--data-dir", dir, "--user", "alice", "--group", "dev")
		m := parseMinted(t, []byte(stdout))
		r, err := http.NewRequest("GET", "https://127.0.0.1/api", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{m.cert}}
		u, ok := auth.Identify(r)
		if !ok || u.Username != "alice" || !slices.Equal(u.Groups, []string{"dev", "system:authenticated"}) {
			t.Errorf("Identify = %q %q, %v; want alice in dev, system:authenticated", u.Username, u.Groups, ok)
		}
	})

	t.Run("-o writes a file only its owner reads", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sub", "alice.kubeconfig")
		code, stdout, stderr := runCLI(t, "kubeconfig", "--data-dir", dir, "--user", "alice", "-o", path)
		if code != 0 || stdout != "" {
			t.Fatalf("exit code %d, stdout %q: %s", code, stdout, stderr)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != 0o600 {
			t.Errorf("mode %v, want 0600", got)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := parseMinted(t, data).cert.Subject.CommonName; got != "alice" {
			t.Errorf("common name %q, want alice", got)
		}
	})
}

func TestKubeconfigCommandErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := credentials.LoadOrCreate(credentials.Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	absEmpty, err := filepath.Abs(filepath.Join(empty, "pki"))
	if err != nil {
		t.Fatal(err)
	}
	garbled := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbled, "kubeconfig"), []byte("{not yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "pki"), filepath.Join(garbled, "pki")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"no user", []string{"--data-dir", dir}, 2, "--user is required"},
		{"blank user", []string{"--data-dir", dir, "--user", " "}, 2, "--user is required"},
		{"empty group", []string{"--data-dir", dir, "--user", "a", "--group", ""}, 2, "a group must not be empty"},
		{"zero expiration", []string{"--data-dir", dir, "--user", "a", "--expiration", "0s"}, 2, "--expiration must be positive"},
		{"bad expiration", []string{"--data-dir", dir, "--user", "a", "--expiration", "soon"}, 2, "invalid value"},
		{"plain HTTP server", []string{"--data-dir", dir, "--user", "a", "--server", "http://127.0.0.1:6443"}, 2, "want an https:// URL"},
		{"server without a scheme", []string{"--data-dir", dir, "--user", "a", "--server", "127.0.0.1:6443"}, 2, "--server"},
		{"extra arguments", []string{"--data-dir", dir, "--user", "a", "more"}, 2, `unexpected arguments ["more"]`},
		{"no CA", []string{"--data-dir", empty, "--user", "a"}, 1, "no CA in " + absEmpty},
		{"no CA in the pki dir", []string{"--pki-dir", filepath.Join(empty, "pki"), "--user", "a", "--server", defaultServerURL}, 1, "no CA in " + absEmpty},
		{"outlives the CA", []string{"--data-dir", dir, "--user", "a", "--expiration", "100000h"}, 1, "--expiration 100000h0m0s goes past the CA's expiry"},
		{"unreadable admin kubeconfig", []string{"--data-dir", garbled, "--user", "a"}, 1, "give --server"},
		{"unwritable output", []string{"--data-dir", dir, "--user", "a", "-o", filepath.Join(dir, "pki", "ca.crt", "x")}, 1, "setpoint kubeconfig: credentials:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"kubeconfig"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.wantCode, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tt.wantStderr)
			}
		})
	}
}

// TestKubeconfigWhoami gives a user a kubeconfig for a running `setpoint
// server` and checks that kubectl, with it, is that user. Skipped without
// kubectl.
func TestKubeconfigWhoami(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	dir := t.TempDir()
	startServer(t, dir)
	path := filepath.Join(t.TempDir(), "alice.kubeconfig")
	if code, _, stderr := runCLI(t, "kubeconfig", "--data-dir", dir, "--user", "alice", "--group", "dev", "--group", "ops", "-o", path); code != 0 {
		t.Fatalf("setpoint kubeconfig: exit code %d: %s", code, stderr)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", path, "auth", "whoami", "-o", "json")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no shared discovery cache
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("kubectl auth whoami: %v\n%s%s", err, out, stderr)
	}
	var review struct {
		Kind   string
		Status struct {
			UserInfo struct {
				Username string
				Groups   []string
				Extra    map[string][]string
			}
		}
	}
	if err := json.Unmarshal(out, &review); err != nil {
		t.Fatalf("kubectl auth whoami -o json: %v\n%s", err, out)
	}
	u := review.Status.UserInfo
	if review.Kind != "SelfSubjectReview" || u.Username != "alice" {
		t.Errorf("got %s for %q, want a SelfSubjectReview for alice:\n%s", review.Kind, u.Username, out)
	}
	if want := []string{"dev", "ops", "system:authenticated"}; !slices.Equal(u.Groups, want) {
		t.Errorf("groups %q, want %q", u.Groups, want)
	}
	if id := u.Extra[credentials.CredentialIDKey]; len(id) != 1 || !strings.HasPrefix(id[0], "X509SHA256=") {
		t.Errorf("extra %s = %q, want the certificate's X509SHA256 fingerprint", credentials.CredentialIDKey, id)
	}
}

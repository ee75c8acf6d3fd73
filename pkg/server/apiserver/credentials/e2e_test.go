package credentials

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestKubeconfigEndToEnd serves with LoadOrCreate's credentials and talks to
// the server the way kubectl would: through a kubeconfig and client-go.
func TestKubeconfigEndToEnd(t *testing.T) {
	creds, err := LoadOrCreate(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	auth := NewAuthenticator(creds.AdminToken)

	type seen struct {
		authorization string
		authenticated bool
		protoMajor    int
	}
	seenc := make(chan seen, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seenc <- seen{r.Header.Get("Authorization"), auth.Authenticate(r), r.ProtoMajor}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	srv.TLS = creds.TLSConfig()
	// The "other CA" case fails its handshake on purpose; keep that out of
	// the test output.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)

	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	byName := *u
	byName.Host = net.JoinHostPort("localhost", u.Port())

	tests := []struct {
		name      string
		serverURL string
	}{
		{"by IP", srv.URL},
		{"by name", byName.String()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "nested", "dir", "kubeconfig")
			if err := WriteKubeconfig(path, tc.serverURL, creds.CAPEM, creds.AdminToken); err != nil {
				t.Fatal(err)
			}
			client := clientFor(t, path)
			resp, err := client.Get(tc.serverURL + "/api")
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			_ = resp.Body.Close()
			if got, want := resp.StatusCode, http.StatusOK; got != want {
				t.Errorf("status = %d, want %d", got, want)
			}
			got := <-seenc
			if want := "Bearer " + creds.AdminToken; got.authorization != want {
				t.Errorf("Authorization = %q, want %q", got.authorization, want)
			}
			if !got.authenticated {
				t.Error("Authenticator rejected the kubeconfig's token")
			}
			if got.protoMajor != 2 {
				t.Errorf("request used HTTP/%d, want HTTP/2 via ALPN", got.protoMajor)
			}
		})
	}

	t.Run("other CA", func(t *testing.T) {
		other, err := Generate(nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "kubeconfig")
		if err := WriteKubeconfig(path, srv.URL, other.CAPEM, creds.AdminToken); err != nil {
			t.Fatal(err)
		}
		resp, err := clientFor(t, path).Get(srv.URL + "/api")
		if err == nil {
			_ = resp.Body.Close()
			t.Fatal("GET succeeded with a client trusting another CA")
		}
		var unknown x509.UnknownAuthorityError
		if !errors.As(err, &unknown) {
			t.Errorf("err = %v, want x509.UnknownAuthorityError", err)
		}
		select {
		case <-seenc:
			t.Error("handler ran for an unverified connection")
		default:
		}
	})
}

func TestClientTLSConfig(t *testing.T) {
	creds, err := Generate(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = creds.TLSConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)

	cfg, err := creds.ClientTLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	_ = resp.Body.Close()
}

func TestTLSConfig(t *testing.T) {
	creds, err := Generate(nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := creds.TLSConfig()
	if got, want := cfg.MinVersion, uint16(tls.VersionTLS12); got != want {
		t.Errorf("MinVersion = %#x, want %#x", got, want)
	}
	if got := cfg.NextProtos; len(got) != 2 || got[0] != "h2" || got[1] != "http/1.1" {
		t.Errorf("NextProtos = %q, want [h2 http/1.1]", got)
	}
	if got := len(cfg.Certificates); got != 1 {
		t.Fatalf("%d certificates, want 1", got)
	}
	// Each call returns its own config so callers may adjust it freely.
	cfg.NextProtos[0] = "changed"
	if creds.TLSConfig().NextProtos[0] != "h2" {
		t.Error("TLSConfig returned shared state")
	}
}

func TestWriteKubeconfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	for _, token := range []string{"first-token", "second-token"} {
		if err := WriteKubeconfig(path, "https://127.0.0.1:6443", []byte("ca-pem"), token); err != nil {
			t.Fatal(err)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("mode = %v, want 0600", got)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the kubeconfig", len(entries))
	}

	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.CurrentContext, "setpoint"; got != want {
		t.Errorf("current-context = %q, want %q", got, want)
	}
	kctx := cfg.Contexts["setpoint"]
	if kctx == nil || kctx.Cluster != "setpoint" || kctx.AuthInfo != "setpoint-admin" {
		t.Fatalf("context setpoint = %+v, want cluster setpoint and user setpoint-admin", kctx)
	}
	cluster := cfg.Clusters["setpoint"]
	if cluster == nil || cluster.Server != "https://127.0.0.1:6443" || string(cluster.CertificateAuthorityData) != "ca-pem" {
		t.Errorf("cluster = %+v", cluster)
	}
	if user := cfg.AuthInfos["setpoint-admin"]; user == nil || user.Token != "second-token" {
		t.Errorf("user = %+v, want token second-token", user)
	}
}

func TestWriteKubeconfigRejectsMissingFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	tests := []struct {
		name      string
		path, url string
		ca        []byte
		token     string
	}{
		{"no path", "", "https://x", []byte("ca"), "t"},
		{"no url", path, "", []byte("ca"), "t"},
		{"no ca", path, "https://x", nil, "t"},
		{"no token", path, "https://x", []byte("ca"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := WriteKubeconfig(tc.path, tc.url, tc.ca, tc.token); err == nil {
				t.Fatal("WriteKubeconfig succeeded, want error")
			}
		})
	}
}

func clientFor(t *testing.T, kubeconfig string) *http.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

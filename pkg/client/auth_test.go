package client_test

import (
	"errors"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
)

// quiet discards the notes tests provoke on purpose.
var quiet = slog.New(slog.DiscardHandler)

// whoami asks the server who cfg authenticates as, through the client.
func whoami(t *testing.T, c *client.Client) authenticationv1.UserInfo {
	t.Helper()
	review := &authenticationv1.SelfSubjectReview{}
	if err := c.Create(ctx(t), review); err != nil {
		t.Fatalf("creating a SelfSubjectReview: %v", err)
	}
	return review.Status.UserInfo
}

// authClient is a client for cfg that knows SelfSubjectReviews.
func authClient(t *testing.T, cfg *rest.Config) *client.Client {
	t.Helper()
	c, err := newAuthClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newAuthClient(cfg *rest.Config) (*client.Client, error) {
	s := client.NewScheme()
	if err := authenticationv1.AddToScheme(s); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: s, Logger: quiet})
}

// anonymous is srv's configuration without credentials: the server's
// address and CA only.
func anonymous(srv *apiservertest.Server) *rest.Config {
	return rest.AnonymousClientConfig(srv.Config)
}

// TestClientCertificate authenticates with a client certificate signed by
// the server's CA, given as data, as files, and through a kubeconfig.
func TestClientCertificate(t *testing.T) {
	srv := apiservertest.Start(t)
	// system:masters keeps the test about authentication: the user may
	// create reviews whatever the authorization policy says.
	cc, err := srv.Credentials.CA().IssueClientCert(credentials.ClientCertOptions{User: "alice", Groups: []string{"system:masters", "dev"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "alice.crt"), filepath.Join(dir, "alice.key")
	for path, data := range map[string][]byte{certFile: cc.CertPEM, keyFile: cc.KeyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	err = credentials.Kubeconfig{Server: srv.URL, CAPEM: srv.Credentials.CAPEM, User: "alice", ClientCert: cc}.Write(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	fromKubeconfig, err := client.Config(kubeconfig, "")
	if err != nil {
		t.Fatal(err)
	}

	withData := anonymous(srv)
	withData.CertData, withData.KeyData = cc.CertPEM, cc.KeyPEM
	withFiles := anonymous(srv)
	withFiles.CertFile, withFiles.KeyFile = certFile, keyFile
	tests := []struct {
		name string
		cfg  *rest.Config
	}{
		{"certificate data", withData},
		{"certificate files", withFiles},
		{"kubeconfig", fromKubeconfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := whoami(t, authClient(t, tt.cfg))
			if u.Username != "alice" || !slices.Equal(u.Groups, []string{"system:masters", "dev", "system:authenticated"}) {
				t.Errorf("got %q in %q, want alice in system:masters, dev, system:authenticated", u.Username, u.Groups)
			}
		})
	}

	t.Run("another CA's certificate", func(t *testing.T) {
		other, err := credentials.Generate(nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		foreign, err := other.CA().IssueClientCert(credentials.ClientCertOptions{User: "mallory", Groups: []string{"system:masters"}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := anonymous(srv)
		cfg.CertData, cfg.KeyData = foreign.CertPEM, foreign.KeyPEM
		review := &authenticationv1.SelfSubjectReview{}
		err = authClient(t, cfg).Create(ctx(t), review)
		var status *client.StatusError
		if !errors.As(err, &status) || status.Status().Code != 401 {
			t.Errorf("got %v, want a 401", err)
		}
	})
}

// writeAtomically replaces path with data by renaming a new file over it,
// as writers that rotate tokens do.
func writeAtomically(t *testing.T, path, data string) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestBearerTokenFileRotation rotates the token in a BearerTokenFile in
// each way the file may change and checks the next request sends the new
// token.
func TestBearerTokenFileRotation(t *testing.T) {
	srv := apiservertest.Start(t)
	admin, loopback := srv.Credentials.AdminToken, srv.Credentials.LoopbackToken
	dir := t.TempDir()

	// The kubelet's layout: token -> ..data/token, ..data -> a
	// timestamped directory that a rotation replaces.
	link := func(target, name string) {
		t.Helper()
		tmp := filepath.Join(dir, name+".tmp")
		if err := os.Symlink(target, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	version := func(name, token string) {
		t.Helper()
		if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "token"), []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		link(name, "..data")
	}
	version("..v1", admin)
	link(filepath.Join("..data", "token"), "token")
	path := filepath.Join(dir, "token")

	cfg := anonymous(srv)
	cfg.BearerTokenFile = path
	c := authClient(t, cfg)
	steps := []struct {
		name   string
		rotate func()
		want   string
	}{
		{"first read", func() {}, credentials.AdminUser.Username},
		{"unchanged", func() {}, credentials.AdminUser.Username},
		{"symlinked directory swapped", func() { version("..v2", loopback) }, credentials.LoopbackUsername},
		{"symlinked directory swapped back", func() { version("..v3", admin) }, credentials.AdminUser.Username},
		// From here on a writer replaces the link with a plain file.
		{"file renamed over", func() { writeAtomically(t, path, loopback) }, credentials.LoopbackUsername},
		{"file rewritten in place", func() {
			// Same length, same inode: only the modification time
			// tells, so make sure it moves.
			if err := os.WriteFile(path, []byte(admin), 0o600); err != nil {
				t.Fatal(err)
			}
			later := time.Now().Add(time.Second)
			if err := os.Chtimes(path, later, later); err != nil {
				t.Fatal(err)
			}
		}, credentials.AdminUser.Username},
		{"file gone: the last token is kept", func() {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, credentials.AdminUser.Username},
		{"file back", func() { writeAtomically(t, path, loopback) }, credentials.LoopbackUsername},
	}
	for _, step := range steps {
		step.rotate()
		if got := whoami(t, c).Username; got != step.want {
			t.Errorf("%s: got %q, want %q", step.name, got, step.want)
		}
	}
}

func TestBearerTokenFileErrors(t *testing.T) {
	srv := apiservertest.Start(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		edit     func(*rest.Config)
		wantErr  bool
		wantUser string
	}{
		{"missing file, no token", func(c *rest.Config) { c.BearerTokenFile = missing }, true, ""},
		{"empty file, no token", func(c *rest.Config) { c.BearerTokenFile = empty }, true, ""},
		{"missing file, token beside it", func(c *rest.Config) {
			c.BearerTokenFile, c.BearerToken = missing, srv.Credentials.AdminToken
		}, false, credentials.AdminUser.Username},
		{"basic auth too", func(c *rest.Config) {
			c.BearerTokenFile, c.BearerToken = missing, srv.Credentials.AdminToken
			c.Username, c.Password = "u", "p"
		}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := anonymous(srv)
			tt.edit(cfg)
			c, err := newAuthClient(cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New: error %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got := whoami(t, c).Username; got != tt.wantUser {
				t.Errorf("got %q, want %q", got, tt.wantUser)
			}
		})
	}
}

// TestInClusterConfig reads a pod's service account from a directory laid
// out as Kubernetes mounts it, and reaches the server with it.
func TestInClusterConfig(t *testing.T) {
	srv := apiservertest.Start(t)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	sa := t.TempDir()
	for name, data := range map[string]string{
		"token":     srv.Credentials.AdminToken,
		"ca.crt":    string(srv.Credentials.CAPEM),
		"namespace": "team-a\n",
	} {
		if err := os.WriteFile(filepath.Join(sa, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", host)
	t.Setenv("KUBERNETES_SERVICE_PORT", port)
	t.Setenv("POD_NAMESPACE", "")

	cfg, err := client.InCluster{Dir: sa}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://" + net.JoinHostPort(host, port); cfg.Host != want {
		t.Errorf("Host %q, want %q", cfg.Host, want)
	}
	if want := filepath.Join(sa, "ca.crt"); cfg.CAFile != want {
		t.Errorf("CAFile %q, want %q", cfg.CAFile, want)
	}
	if want := filepath.Join(sa, "token"); cfg.BearerTokenFile != want {
		t.Errorf("BearerTokenFile %q, want %q", cfg.BearerTokenFile, want)
	}
	c := authClient(t, cfg)
	if got := whoami(t, c).Username; got != credentials.AdminUser.Username {
		t.Errorf("got %q, want %q", got, credentials.AdminUser.Username)
	}
	// The kubelet rotates the token; the client follows.
	writeAtomically(t, filepath.Join(sa, "token"), srv.Credentials.LoopbackToken)
	if got := whoami(t, c).Username; got != credentials.LoopbackUsername {
		t.Errorf("after rotation: got %q, want %q", got, credentials.LoopbackUsername)
	}

	t.Run("namespace", func(t *testing.T) {
		tests := []struct {
			name, env, dir string
			want           string
			wantOK         bool
		}{
			{"from the file", "", sa, "team-a", true},
			{"POD_NAMESPACE first", "team-b", sa, "team-b", true},
			{"neither", "", t.TempDir(), "", false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Setenv("POD_NAMESPACE", tt.env)
				got, ok := client.InCluster{Dir: tt.dir}.Namespace()
				if got != tt.want || ok != tt.wantOK {
					t.Errorf("Namespace = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
				}
			})
		}
	})

	t.Run("unusable", func(t *testing.T) {
		badCA := t.TempDir()
		for name, data := range map[string]string{"token": "t", "ca.crt": "not a certificate"} {
			if err := os.WriteFile(filepath.Join(badCA, name), []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := client.InCluster{Dir: badCA, Logger: quiet}.Config()
		if err != nil || cfg.CAFile != "" {
			t.Errorf("unreadable CA: got CAFile %q, error %v; want the CA left out, no error", cfg.CAFile, err)
		}
		if _, err := (client.InCluster{Dir: t.TempDir(), Logger: quiet}).Config(); err == nil {
			t.Error("no token: got no error")
		}
		t.Setenv("KUBERNETES_SERVICE_PORT", "")
		if _, err := (client.InCluster{Dir: sa}).Config(); !errors.Is(err, rest.ErrNotInCluster) {
			t.Errorf("no KUBERNETES_SERVICE_PORT: got %v, want rest.ErrNotInCluster", err)
		}
	})
}

// TestConfigInCluster checks Config's order around the pod's service
// account: after an explicit path and $KUBECONFIG, before ~/.kube/config,
// and never when a context is asked for.
func TestConfigInCluster(t *testing.T) {
	creds, err := credentials.Generate(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	sa := t.TempDir()
	for name, data := range map[string][]byte{"token": []byte("sa-token"), "ca.crt": creds.CAPEM} {
		if err := os.WriteFile(filepath.Join(sa, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	client.SetServiceAccountDir(t, sa)
	home := t.TempDir()
	kubeconfig := filepath.Join(home, ".kube", "config")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://from-kubeconfig:6443"}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	kc.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	kc.CurrentContext = "c"
	if err := os.MkdirAll(filepath.Dir(kubeconfig), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	tests := []struct {
		name       string
		path, kctx string
		env        string // $KUBECONFIG
		want       string
	}{
		{"in a pod", "", "", "", "https://10.96.0.1:443"},
		{"explicit path", kubeconfig, "", "", "https://from-kubeconfig:6443"},
		{"$KUBECONFIG", "", "", kubeconfig, "https://from-kubeconfig:6443"},
		{"a context asked for", "", "c", "", "https://from-kubeconfig:6443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tt.env)
			cfg, err := client.Config(tt.path, tt.kctx)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tt.want {
				t.Errorf("Host %q, want %q", cfg.Host, tt.want)
			}
		})
	}
}

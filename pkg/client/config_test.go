package client_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// writeKubeconfig writes a kubeconfig with two contexts: "main" (current)
// for srv and "other" for another host.
func writeKubeconfig(t *testing.T, path string, srv *apiservertest.Server) {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["main"] = &clientcmdapi.Cluster{Server: srv.URL, CertificateAuthorityData: srv.Config.CAData}
	kc.Clusters["other"] = &clientcmdapi.Cluster{Server: "https://other.example:6443"}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: srv.Config.BearerToken}
	kc.Contexts["main"] = &clientcmdapi.Context{Cluster: "main", AuthInfo: "admin"}
	kc.Contexts["other"] = &clientcmdapi.Context{Cluster: "other", AuthInfo: "admin"}
	kc.CurrentContext = "main"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
}

func TestConfig(t *testing.T) {
	srv := apiservertest.Start(t)
	dir := t.TempDir()
	explicit := filepath.Join(dir, "explicit")
	fromEnv := filepath.Join(dir, "env")
	home := filepath.Join(dir, "home")
	emptyHome := filepath.Join(dir, "empty")
	for _, p := range []string{explicit, fromEnv, filepath.Join(home, ".kube", "config")} {
		writeKubeconfig(t, p, srv)
	}
	tests := []struct {
		name       string
		path, ctx  string
		kubeconfig string // $KUBECONFIG
		home       string
		wantHost   string
		wantErr    bool
	}{
		{"explicit path", explicit, "", "", emptyHome, srv.URL, false},
		{"explicit path and context", explicit, "other", "", emptyHome, "https://other.example:6443", false},
		{"explicit path wins over $KUBECONFIG", explicit, "", filepath.Join(dir, "missing"), emptyHome, srv.URL, false},
		{"$KUBECONFIG", "", "", fromEnv, emptyHome, srv.URL, false},
		{"~/.kube/config", "", "", "", home, srv.URL, false},
		{"~/.kube/config and context", "", "other", "", home, "https://other.example:6443", false},
		{"unknown context", explicit, "nope", "", emptyHome, "", true},
		{"nothing to load", "", "", "", emptyHome, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tt.kubeconfig)
			t.Setenv("HOME", tt.home)
			t.Setenv("KUBERNETES_SERVICE_HOST", "") // not in a pod
			cfg, err := client.Config(tt.path, tt.ctx)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Config: got error %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if cfg.Host != tt.wantHost {
				t.Errorf("Host: got %q, want %q", cfg.Host, tt.wantHost)
			}
			if !strings.Contains(cfg.UserAgent, "setpoint") {
				t.Errorf("UserAgent %q does not name setpoint", cfg.UserAgent)
			}
		})
	}

	// The loaded configuration reaches the server.
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	cfg, err := client.Config(explicit, "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx(t), types.NamespacedName{Name: "default"}, &corev1.Namespace{}); err != nil {
		t.Errorf("Get through the loaded configuration: %v", err)
	}
}

package client

import (
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
)

// ServiceAccountDir is where Kubernetes mounts a pod's service account:
// its token, the cluster's CA (ca.crt) and the pod's namespace.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// The service account's files, and the environment a pod finds the API
// server by: the kubernetes Service's address.
const (
	saTokenFile     = "token"
	saCAFile        = "ca.crt"
	saNamespaceFile = "namespace"
	envServiceHost  = "KUBERNETES_SERVICE_HOST"
	envServicePort  = "KUBERNETES_SERVICE_PORT"
	envPodNamespace = "POD_NAMESPACE"
)

// InCluster reads the configuration of a program running in a pod.
type InCluster struct {
	// Dir holds the service account's files; empty is ServiceAccountDir.
	Dir string
	// Logger receives the note that the CA is unreadable; nil is
	// slog.Default().
	Logger *slog.Logger
}

// InClusterConfig is InCluster{}.Config(): the configuration of a program
// running in a pod, as rest.InClusterConfig gives it.
func InClusterConfig() (*rest.Config, error) { return InCluster{}.Config() }

// serviceAccountDir is ServiceAccountDir but for tests, which have no pod.
var serviceAccountDir = ServiceAccountDir

func (ic InCluster) dir() string {
	if ic.Dir == "" {
		return serviceAccountDir
	}
	return ic.Dir
}

// Config returns what reaches the API server from inside a pod, as
// rest.InClusterConfig does: the kubernetes Service's address from
// $KUBERNETES_SERVICE_HOST and $KUBERNETES_SERVICE_PORT (both needed,
// else rest.ErrNotInCluster), the service account's token, re-read from
// its file as the kubelet rotates it, and its CA. A CA that cannot be
// read is logged and left out, so the system's roots are trusted instead.
func (ic InCluster) Config() (*rest.Config, error) {
	host, port := os.Getenv(envServiceHost), os.Getenv(envServicePort)
	if host == "" || port == "" {
		return nil, rest.ErrNotInCluster
	}
	tokenFile := filepath.Join(ic.dir(), saTokenFile)
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("client: in-cluster configuration: %w", err)
	}
	var tlsConfig rest.TLSClientConfig
	caFile := filepath.Join(ic.dir(), saCAFile)
	if err := checkCAFile(caFile); err != nil {
		log := ic.Logger
		if log == nil {
			log = slog.Default()
		}
		log.Error("in-cluster CA unreadable, trusting the system's roots", "path", caFile, "err", err)
	} else {
		tlsConfig.CAFile = caFile
	}
	return &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		TLSClientConfig: tlsConfig,
		BearerToken:     string(token),
		BearerTokenFile: tokenFile,
	}, nil
}

// checkCAFile reports whether path holds at least one PEM certificate.
func checkCAFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(data) {
		return fmt.Errorf("%s holds no PEM certificate", path)
	}
	return nil
}

// Namespace returns the namespace of the pod the program runs in:
// $POD_NAMESPACE (set through the downward API), else the service
// account's namespace file. ok is false when neither says; clientcmd then
// uses "default".
func (ic InCluster) Namespace() (ns string, ok bool) {
	if ns := os.Getenv(envPodNamespace); ns != "" {
		return ns, true
	}
	data, err := os.ReadFile(filepath.Join(ic.dir(), saNamespaceFile))
	if err != nil {
		return "", false
	}
	ns = strings.TrimSpace(string(data))
	return ns, ns != ""
}

package credentials

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	kubeconfigCluster = "setpoint"
	kubeconfigUser    = "setpoint-admin"
	kubeconfigContext = "setpoint"
)

// Kubeconfig is a kubeconfig holding one cluster (named "setpoint"), one
// user and one context. The CA and the user's credentials are embedded
// rather than referenced by path, so the file keeps working when copied
// elsewhere.
type Kubeconfig struct {
	// Server is the server's URL.
	Server string
	// CAPEM is the CA the server's certificate is checked against.
	CAPEM []byte
	// User names the user.
	User string
	// Context names the context; empty is User@setpoint, as kubeadm
	// names a user's context.
	Context string
	// Token and ClientCert are how the user authenticates: exactly one
	// is set.
	Token      string
	ClientCert *ClientCert
}

// Encode returns k as kubeconfig YAML.
func (k Kubeconfig) Encode() ([]byte, error) {
	switch {
	case k.Server == "":
		return nil, errors.New("credentials: kubeconfig server URL not set")
	case len(k.CAPEM) == 0:
		return nil, errors.New("credentials: kubeconfig CA not set")
	case k.User == "":
		return nil, errors.New("credentials: kubeconfig user not set")
	case k.Token == "" && k.ClientCert == nil:
		return nil, errors.New("credentials: kubeconfig token not set")
	case k.Token != "" && k.ClientCert != nil:
		return nil, errors.New("credentials: kubeconfig has both a token and a client certificate")
	}
	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = k.Server
	cluster.CertificateAuthorityData = k.CAPEM
	cfg.Clusters[kubeconfigCluster] = cluster

	user := clientcmdapi.NewAuthInfo()
	user.Token = k.Token
	if k.ClientCert != nil {
		user.ClientCertificateData = k.ClientCert.CertPEM
		user.ClientKeyData = k.ClientCert.KeyPEM
	}
	cfg.AuthInfos[k.User] = user

	name := k.Context
	if name == "" {
		name = k.User + "@" + kubeconfigCluster
	}
	kctx := clientcmdapi.NewContext()
	kctx.Cluster = kubeconfigCluster
	kctx.AuthInfo = k.User
	cfg.Contexts[name] = kctx
	cfg.CurrentContext = name

	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("credentials: encode kubeconfig: %w", err)
	}
	return data, nil
}

// Write writes k to path, readable by its owner only, creating the
// directory if needed. The write is atomic so a kubectl running
// concurrently never reads half a file.
func (k Kubeconfig) Write(path string) error {
	if path == "" {
		return errors.New("credentials: kubeconfig path not set")
	}
	data, err := k.Encode()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return fmt.Errorf("credentials: create kubeconfig directory: %w", err)
	}
	if err := writeFileAtomic(path, data, secretMode); err != nil {
		return fmt.Errorf("credentials: kubeconfig: %w", err)
	}
	return nil
}

// WriteKubeconfig writes a kubeconfig for the admin user of the server at
// serverURL, authenticating with token.
func WriteKubeconfig(path, serverURL string, caPEM []byte, token string) error {
	if token == "" {
		return errors.New("credentials: kubeconfig token not set")
	}
	return Kubeconfig{
		Server: serverURL, CAPEM: caPEM, Token: token,
		User: kubeconfigUser, Context: kubeconfigContext,
	}.Write(path)
}

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

// WriteKubeconfig writes a kubeconfig for the admin user of the server at
// serverURL. The CA and token are embedded rather than referenced by path so
// the file keeps working when copied elsewhere. The write is atomic so a
// kubectl running concurrently never reads half a file.
func WriteKubeconfig(path, serverURL string, caPEM []byte, token string) error {
	switch {
	case path == "":
		return errors.New("credentials: kubeconfig path not set")
	case serverURL == "":
		return errors.New("credentials: kubeconfig server URL not set")
	case len(caPEM) == 0:
		return errors.New("credentials: kubeconfig CA not set")
	case token == "":
		return errors.New("credentials: kubeconfig token not set")
	}

	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = serverURL
	cluster.CertificateAuthorityData = caPEM
	cfg.Clusters[kubeconfigCluster] = cluster

	user := clientcmdapi.NewAuthInfo()
	user.Token = token
	cfg.AuthInfos[kubeconfigUser] = user

	kctx := clientcmdapi.NewContext()
	kctx.Cluster = kubeconfigCluster
	kctx.AuthInfo = kubeconfigUser
	cfg.Contexts[kubeconfigContext] = kctx
	cfg.CurrentContext = kubeconfigContext

	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("credentials: encode kubeconfig: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return fmt.Errorf("credentials: create kubeconfig directory: %w", err)
	}
	if err := writeFileAtomic(path, data, secretMode); err != nil {
		return fmt.Errorf("credentials: kubeconfig: %w", err)
	}
	return nil
}

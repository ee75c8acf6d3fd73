package client

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Config finds the API server to talk to, the way kubectl and
// controller-runtime do, and returns its *rest.Config:
//
//  1. kubeconfigPath, when not empty;
//  2. the files $KUBECONFIG names, when set;
//  3. the pod's service account, when running in a cluster (skipped when
//     a context is asked for: contexts exist only in kubeconfig files);
//  4. ~/.kube/config.
//
// kubeContext picks a context other than the kubeconfig's current one.
// The UserAgent is set to DefaultUserAgent unless the kubeconfig set one.
func Config(kubeconfigPath, kubeContext string) (*rest.Config, error) {
	cfg, err := findConfig(kubeconfigPath, kubeContext)
	if err != nil {
		return nil, fmt.Errorf("client: loading configuration: %w", err)
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent()
	}
	return cfg, nil
}

func findConfig(path, kubeContext string) (*rest.Config, error) {
	if path != "" {
		return fromKubeconfig(&clientcmd.ClientConfigLoadingRules{ExplicitPath: path}, kubeContext)
	}
	if os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" && kubeContext == "" {
		if cfg, err := InClusterConfig(); err == nil {
			return cfg, nil
		}
	}
	// The default rules read $KUBECONFIG when set, ~/.kube/config
	// otherwise; clientcmd fixes the home directory when the program
	// starts, so it is looked up again here.
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" {
		if home, err := os.UserHomeDir(); err == nil {
			rules.Precedence = []string{filepath.Join(home, clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)}
		}
	}
	return fromKubeconfig(rules, kubeContext)
}

func fromKubeconfig(rules *clientcmd.ClientConfigLoadingRules, kubeContext string) (*rest.Config, error) {
	overrides := &clientcmd.ConfigOverrides{CurrentContext: kubeContext}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
}

// DefaultUserAgent names the program, its version and platform, so a
// server's audit log and metrics tell Setpoint controllers apart:
// "<binary>/<version> (<os>/<arch>) setpoint".
func DefaultUserAgent() string {
	bin := "setpoint"
	if len(os.Args) > 0 {
		if b := headerToken(filepath.Base(os.Args[0])); b != "" && b != "." {
			bin = b
		}
	}
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = headerToken(bi.Main.Version)
	}
	return fmt.Sprintf("%s/%s (%s/%s) setpoint", bin, version, runtime.GOOS, runtime.GOARCH)
}

// headerToken drops what cannot go into a User-Agent product token.
func headerToken(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, r) {
			return -1
		}
		return r
	}, s)
}

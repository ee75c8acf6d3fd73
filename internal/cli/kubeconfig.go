package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
)

// defaultServerURL is where `setpoint server` listens by default.
const defaultServerURL = "https://127.0.0.1:6443"

// runKubeconfig gives a user a kubeconfig, as `kubeadm kubeconfig user`
// does: it signs a client certificate for the user with the server's CA
// (read from the data directory, so it runs where the server's files
// are) and prints a kubeconfig embedding the CA, the certificate and its
// key. The server then authenticates the user by the certificate; what
// the user may do is up to authorization.
func runKubeconfig(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fset := flags("kubeconfig", stderr)
	user := fset.String("user", "", "user name, the certificate's common name (required)")
	var groups groupList
	fset.Var(&groups, "group", "group the user is in, the certificate's organization; repeat for more (system:masters is all-powerful)")
	dataDir := fset.String("data-dir", "./setpoint-data", "the server's data directory: its CA is in <data-dir>/pki, its URL in <data-dir>/kubeconfig")
	pkiDir := fset.String("pki-dir", "", "the server's --pki-dir, when it has one (default <data-dir>/pki)")
	server := fset.String("server", "", "the server's URL (default the one <data-dir>/kubeconfig names, else "+defaultServerURL+")")
	expiration := fset.Duration("expiration", credentials.DefaultClientCertValidity, "how long the certificate is valid")
	output := fset.String("o", "", "file to write the kubeconfig to, readable by its owner only (default standard output)")
	fset.Usage = func() {
		fmt.Fprintln(stderr, "Usage: setpoint kubeconfig --user NAME [--group GROUP]... [-o FILE]\n\n"+
			"Signs a client certificate for NAME with the server's CA and writes a kubeconfig with it.\n\nFlags:")
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "setpoint kubeconfig: "+format+"\n", a...)
		return 2
	}
	switch {
	case fset.NArg() > 0:
		return usage("unexpected arguments %q", fset.Args())
	case strings.TrimSpace(*user) == "":
		return usage("--user is required")
	case *expiration <= 0:
		return usage("--expiration must be positive, not %v", *expiration)
	}
	pki := *pkiDir
	if pki == "" {
		pki = filepath.Join(*dataDir, "pki")
	}
	serverURL := *server
	if serverURL == "" {
		var err error
		if serverURL, err = adminServerURL(filepath.Join(*dataDir, "kubeconfig")); err != nil {
			fmt.Fprintf(stderr, "setpoint kubeconfig: %v\n", err)
			return 1
		}
	}
	if err := checkServerURL(serverURL); err != nil {
		return usage("--server: %v", err)
	}

	now := time.Now()
	ca, err := credentials.LoadCA(pki, now)
	if errors.Is(err, credentials.ErrNoCA) {
		abs, _ := filepath.Abs(pki)
		fmt.Fprintf(stderr, "setpoint kubeconfig: no CA in %s: give the server's --data-dir or --pki-dir, or start `setpoint server` once to create it\n", abs)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "setpoint kubeconfig: %v\n", err)
		return 1
	}
	cert, err := ca.IssueClientCert(credentials.ClientCertOptions{User: *user, Groups: groups, Validity: *expiration, Now: now})
	if errors.Is(err, credentials.ErrOutlivesCA) {
		fmt.Fprintf(stderr, "setpoint kubeconfig: --expiration %v goes past the CA's expiry at %s\n", *expiration, ca.NotAfter().UTC().Format(time.RFC3339))
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "setpoint kubeconfig: %v\n", err)
		return 1
	}
	kc := credentials.Kubeconfig{Server: serverURL, CAPEM: ca.CertPEM(), User: *user, ClientCert: cert}
	if *output != "" {
		if err := kc.Write(*output); err != nil {
			fmt.Fprintf(stderr, "setpoint kubeconfig: %v\n", err)
			return 1
		}
		return 0
	}
	data, err := kc.Encode()
	if err == nil {
		_, err = stdout.Write(data)
	}
	if err != nil {
		fmt.Fprintf(stderr, "setpoint kubeconfig: %v\n", err)
		return 1
	}
	return 0
}

// adminServerURL is the server URL of the kubeconfig `setpoint server`
// wrote at path, or defaultServerURL when there is none.
func adminServerURL(path string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return defaultServerURL, nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the server URL: %w (give --server)", err)
	}
	if kctx := cfg.Contexts[cfg.CurrentContext]; kctx != nil {
		if cluster := cfg.Clusters[kctx.Cluster]; cluster != nil && cluster.Server != "" {
			return cluster.Server, nil
		}
	}
	return "", fmt.Errorf("%s names no server for its current context (give --server)", path)
}

// checkServerURL accepts the HTTPS URLs a client certificate can be
// presented to.
func checkServerURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("want an https:// URL with a host, not %q", s)
	}
	return nil
}

// groupList collects a repeated --group flag.
type groupList []string

func (g *groupList) String() string { return strings.Join(*g, ",") }

func (g *groupList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("a group must not be empty")
	}
	*g = append(*g, v)
	return nil
}

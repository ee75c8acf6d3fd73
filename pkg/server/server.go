// Package server is Setpoint's composition root: it assembles a whole
// server (store, credentials, API, compactor and the built-in
// controllers) from one Config. `setpoint server` is flag parsing around
// it, the in-process test server (pkg/server/apiserver/apiservertest) is a
// memory-store preset of it, and programs embedding Setpoint use it the
// same way: New, then Run until the context ends.
package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers"
	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

// Config says what server to assemble. The zero value with a Listen
// address is a server on the memory store with fresh credentials and
// every built-in controller.
type Config struct {
	// DataDir holds the credentials (DataDir/pki) and, for the bolt
	// backend, the database; it is created if missing. Empty keeps fresh
	// credentials in memory, for servers that live as long as a process.
	DataDir string
	// PKIDir, when set, holds the credentials instead of DataDir/pki, so
	// that replicas can share them.
	PKIDir string
	// Storage is the backend: StorageBolt (durable, needs DataDir),
	// StorageEtcd (needs Etcd.Servers) or StorageMemory. Empty is bolt
	// with a DataDir, memory without.
	Storage string
	// Etcd says where the etcd backend's cluster is.
	Etcd EtcdConfig
	// Store, when set, is used instead of opening Storage. The caller
	// owns it: Run does not close it.
	Store storage.Interface
	// QuotaBytes bounds data and history, past which the store refuses
	// creates and updates; 0 means no quota. It also caps how much
	// history the compactor keeps (an eighth of it).
	QuotaBytes int64

	// Listen is the TCP address to serve HTTPS on, such as
	// "127.0.0.1:6443" or "127.0.0.1:0" for a free port.
	Listen string
	// Listener, when set, is served instead of listening on Listen.
	Listener net.Listener
	// Credentials, when set, replace the ones DataDir holds or New
	// generates.
	Credentials *credentials.Credentials
	// Kubeconfig is where to write a kubeconfig for the admin; empty
	// writes none.
	Kubeconfig string

	// API tunes the API server: timeouts, in-flight limits, access log,
	// cache limits, the service account issuer. New fills in Storage,
	// Logger and StorageSize, Authenticator from the credentials when it
	// is nil, and the service account signing key when it is nil: the
	// PKI directory's (created there on the first start), or a fresh one
	// for a server without a DataDir or PKIDir.
	API apiserver.Config
	// Controllers tune the built-in controllers, which reach the API over
	// loopback as the server's own identity. Disabling all of them runs
	// none. A nil Logger is Config.Logger.
	Controllers controllers.Options

	// Logger receives the server's logs; nil is slog.Default().
	Logger *slog.Logger
}

// The storage backends.
const (
	StorageBolt   = "bolt"
	StorageEtcd   = "etcd"
	StorageMemory = "memory"
)

// EtcdConfig locates an etcd cluster, as kube-apiserver's --etcd-* flags.
type EtcdConfig struct {
	// Servers are the client URLs.
	Servers []string
	// CAFile verifies the servers' certificates; CertFile and KeyFile
	// are the client's. All empty means plain HTTP or the system roots.
	CAFile, CertFile, KeyFile string
	// Prefix is where keys live in etcd; empty means "/registry", the
	// layout kube-apiserver uses.
	Prefix string
}

// Server is an assembled server, listening but not yet serving: Run
// serves it.
type Server struct {
	cfg      Config
	log      *slog.Logger
	creds    *credentials.Credentials
	store    storage.Interface
	ownStore bool
	backend  string
	api      *apiserver.Server
	ln       net.Listener
	url      string
	admin    *rest.Config
	loopback *rest.Config
}

// New assembles a server: it opens the store, loads or makes the
// credentials, builds the API, listens, and writes the kubeconfig. It
// starts nothing; Run does, and releases what New opened (the store,
// the listener) when it returns, so call Run once for every server New
// returns.
func New(cfg Config) (_ *Server, err error) {
	s := &Server{cfg: cfg, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	if cfg.Listener == nil && cfg.Listen == "" {
		return nil, errors.New("server: neither Listen nor Listener set")
	}
	if cfg.DataDir != "" {
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, err
		}
	}
	if s.creds, err = loadCredentials(cfg); err != nil {
		return nil, err
	}
	size, err := s.openStore()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil && s.ownStore {
			s.store.Close()
		}
	}()

	acfg := cfg.API
	acfg.Storage = s.store
	acfg.Logger = s.log
	if acfg.StorageSize == nil {
		acfg.StorageSize = size
	}
	if acfg.Authenticator == nil {
		acfg.Authenticator = s.creds.Authenticator()
	}
	if acfg.ServiceAccounts.Key == nil {
		if acfg.ServiceAccounts.Key, err = loadServiceAccountKey(cfg); err != nil {
			return nil, err
		}
	}
	if b, ok := s.store.(*bolt.Store); ok && acfg.Snapshot == nil {
		acfg.Snapshot = func() (apiserver.StoreSnapshot, error) {
			sn, err := b.Snapshot()
			if err != nil {
				return nil, err
			}
			return sn, nil
		}
	}
	if s.api, err = apiserver.New(acfg); err != nil {
		return nil, err
	}
	s.ln = cfg.Listener
	if s.ln == nil {
		if s.ln, err = net.Listen("tcp", cfg.Listen); err != nil {
			return nil, err
		}
	}
	s.url = "https://" + dialAddress(s.ln.Addr())
	if cfg.Kubeconfig != "" {
		if err := credentials.WriteKubeconfig(cfg.Kubeconfig, s.url, s.creds.CAPEM, s.creds.AdminToken); err != nil {
			s.ln.Close()
			return nil, err
		}
	}
	s.admin = &rest.Config{
		Host:            s.url,
		BearerToken:     s.creds.AdminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.creds.CAPEM},
	}
	// The server's own clients are never throttled on their side either:
	// the in-flight limits already let them through.
	s.loopback = rest.CopyConfig(s.admin)
	s.loopback.BearerToken = s.creds.LoopbackToken
	s.loopback.QPS = -1
	return s, nil
}

// loadCredentials returns the configured credentials, those DataDir
// holds, or fresh ones, naming the listen host in the serving
// certificate.
func loadCredentials(cfg Config) (*credentials.Credentials, error) {
	if cfg.Credentials != nil {
		return cfg.Credentials, nil
	}
	addr := cfg.Listen
	if cfg.Listener != nil {
		addr = cfg.Listener.Addr().String()
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address: %w", err)
	}
	var hosts []string
	if host != "" && host != "0.0.0.0" && host != "::" {
		hosts = append(hosts, host)
	}
	if cfg.DataDir == "" && cfg.PKIDir == "" {
		return credentials.Generate(hosts, time.Now())
	}
	return credentials.LoadOrCreate(credentials.Options{Dir: cfg.DataDir, PKIDir: cfg.PKIDir, Hosts: hosts})
}

// loadServiceAccountKey returns the key ServiceAccount tokens are signed
// with: sa.key in the PKI directory, created there on the first start,
// so that replicas sharing the directory sign and accept the same
// tokens; a fresh one for a server that keeps nothing on disk.
func loadServiceAccountKey(cfg Config) (*serviceaccount.Key, error) {
	if cfg.DataDir == "" && cfg.PKIDir == "" {
		return serviceaccount.GenerateKey()
	}
	return serviceaccount.LoadOrCreateKey(credentials.Options{Dir: cfg.DataDir, PKIDir: cfg.PKIDir}.PKIPath())
}

// dialAddress is the address clients should dial: a wildcard listen
// address is reached through loopback.
func dialAddress(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	ip := tcp.IP
	if ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(tcp.Port))
}

// URL is the server's base URL, such as https://127.0.0.1:6443.
func (s *Server) URL() string { return s.url }

// AdminConfig reaches the server as its admin; each call returns a copy.
func (s *Server) AdminConfig() *rest.Config { return rest.CopyConfig(s.admin) }

// LoopbackConfig reaches the server as the server itself
// (system:apiserver), the identity the built-in controllers use and the
// in-flight limits never refuse; each call returns a copy.
func (s *Server) LoopbackConfig() *rest.Config { return rest.CopyConfig(s.loopback) }

// Ready is closed once Run serves requests.
func (s *Server) Ready() <-chan struct{} { return s.api.Ready() }

// API is the API server.
func (s *Server) API() *apiserver.Server { return s.api }

// Storage is the store behind the API.
func (s *Server) Storage() storage.Interface { return s.store }

// Credentials hold the CA, the admin token and the loopback token.
func (s *Server) Credentials() *credentials.Credentials { return s.creds }

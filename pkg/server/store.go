package server

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
	"github.com/setpoint-dev/setpoint/pkg/storage/etcd"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// DBFile is the bolt database's file inside the data directory.
const DBFile = "setpoint.db"

// memoryRetention is the history the memory backend keeps. Its history
// is heap, beside the watch cache that already serves every recent
// watch, so it keeps less than a database's: past 32 MiB only the
// newest changes stay, for consistent reads and continued lists.
var memoryRetention = storage.Retention{MinAge: storage.DefaultRetention.MinAge, MinBytes: 8 << 20, MaxBytes: 32 << 20}

// retention is the history the compactor keeps: the backend's default,
// within an eighth of the quota so that history never crowds out the
// objects themselves.
func (s *Server) retention() storage.Retention {
	r := storage.DefaultRetention
	if s.backend == StorageMemory {
		r = memoryRetention
	}
	return storage.RetentionForQuota(r, s.cfg.QuotaBytes)
}

// openStore sets s.store from the configuration and returns the database
// size function for metrics (nil when the store has no file).
func (s *Server) openStore() (func() (int64, error), error) {
	cfg := s.cfg
	if cfg.Store != nil {
		s.store, s.backend = cfg.Store, "custom"
		return nil, nil
	}
	s.backend = cfg.Storage
	if s.backend == "" {
		s.backend = StorageMemory
		if cfg.DataDir != "" {
			s.backend = StorageBolt
		}
	}
	switch s.backend {
	case StorageMemory:
		s.store, s.ownStore = memory.NewWithQuota(cfg.QuotaBytes), true
		return nil, nil
	case StorageEtcd:
		st, err := OpenEtcd(cfg.Etcd)
		if err != nil {
			return nil, err
		}
		s.store, s.ownStore = st, true
		return nil, nil
	case StorageBolt:
	default:
		return nil, fmt.Errorf("server: unknown storage backend %q", s.backend)
	}
	if cfg.DataDir == "" {
		return nil, fmt.Errorf("server: the bolt backend needs a data directory")
	}
	path := filepath.Join(cfg.DataDir, DBFile)
	opts := bolt.Options{QuotaBytes: cfg.QuotaBytes}
	if opts.QuotaBytes == 0 {
		opts.QuotaBytes = -1 // bolt reads 0 as its default
	}
	b, err := bolt.Open(path, opts)
	if err != nil {
		return nil, err
	}
	s.store, s.ownStore = b, true
	return func() (int64, error) {
		fi, err := os.Stat(path)
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}, nil
}

// OpenEtcd connects the etcd backend, as the server and `setpoint
// migrate` use it. The server's keys start with
// /registry/, so the default prefix keeps them as they are, and another
// prefix P stores /registry/<rest> as P/<rest>, as kube-apiserver's
// --etcd-prefix does.
func OpenEtcd(cfg EtcdConfig) (*etcd.Store, error) {
	if len(cfg.Servers) == 0 {
		return nil, fmt.Errorf("server: the etcd backend needs --etcd-servers")
	}
	opts := etcd.Options{Endpoints: cfg.Servers}
	if p := strings.TrimSuffix(cfg.Prefix, "/"); p != "" && p != "/registry" {
		opts.Prefix, opts.Root = p, "/registry"
	}
	if cfg.CAFile != "" || cfg.CertFile != "" || cfg.KeyFile != "" {
		tlsCfg, err := etcdTLS(cfg)
		if err != nil {
			return nil, err
		}
		opts.TLS = tlsCfg
	}
	return etcd.Open(opts)
}

// etcdTLS loads the client's TLS files.
func etcdTLS(cfg EtcdConfig) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("server: --etcd-cafile: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("server: --etcd-cafile %s holds no PEM certificate", cfg.CAFile)
		}
	}
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return nil, fmt.Errorf("server: --etcd-certfile and --etcd-keyfile go together")
	}
	if cfg.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("server: etcd client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

package server

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
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

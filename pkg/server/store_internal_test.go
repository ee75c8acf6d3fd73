package server

import (
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

func TestRetention(t *testing.T) {
	tests := []struct {
		name    string
		backend string
		quota   int64
		want    storage.Retention
	}{
		{"bolt keeps the default", StorageBolt, 0, storage.DefaultRetention},
		{"memory keeps less", StorageMemory, 0, memoryRetention},
		{"a quota lowers memory's too", StorageMemory, 64 << 20, storage.Retention{MinAge: memoryRetention.MinAge, MinBytes: 8 << 20, MaxBytes: 8 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{backend: tt.backend, cfg: Config{QuotaBytes: tt.quota}}
			if got := s.retention(); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

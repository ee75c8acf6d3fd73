package apiserver_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

func TestSnapshot(t *testing.T) {
	store, err := bolt.Open(filepath.Join(t.TempDir(), "db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	onBolt := clientFor(t, apiservertest.StartWith(t, apiservertest.Options{
		Storage: store,
		Configure: func(cfg *apiserver.Config) {
			cfg.Snapshot = func() (apiserver.StoreSnapshot, error) { return store.Snapshot() }
		},
	}))
	onBolt.must(http.StatusCreated, "POST", "/api/v1/namespaces/default/configmaps", configMap("default", "a", map[string]any{"k": "v"}))

	r := onBolt.do("GET", apiserver.SnapshotPath, nil)
	if r.code != http.StatusOK {
		t.Fatalf("GET %s = %d: %s", apiserver.SnapshotPath, r.code, r.body)
	}
	if got := r.header.Get("Content-Length"); got != strconv.Itoa(len(r.body)) {
		t.Errorf("Content-Length %s, body %d bytes", got, len(r.body))
	}
	file := filepath.Join(t.TempDir(), "snap")
	if err := os.WriteFile(file, r.body, 0o600); err != nil {
		t.Fatal(err)
	}
	rev, err := bolt.Verify(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.header.Get(apiserver.RevisionHeader); got != strconv.FormatInt(rev, 10) {
		t.Errorf("%s: %s, the file's revision %d", apiserver.RevisionHeader, got, rev)
	}

	anonymous := clientFor(t, apiservertest.StartWith(t, apiservertest.Options{
		Configure: func(cfg *apiserver.Config) { cfg.Authenticator = nil },
	}))
	tests := []struct {
		name     string
		c        *client
		method   string
		wantCode int
		wantMsg  string
	}{
		{"not a bolt store", newClient(t), "GET", http.StatusBadRequest, "this server's storage takes no snapshots: only the embedded bolt store does; back up etcd with etcdctl snapshot save"},
		{"not an administrator", anonymous, "GET", http.StatusForbidden, `forbidden: User "system:anonymous" cannot get path "/snapshot"`},
		{"not a GET", onBolt, "POST", http.StatusMethodNotAllowed, "the server does not allow this method on the requested resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.c.must(tt.wantCode, tt.method, apiserver.SnapshotPath, nil)
			if st["kind"] != "Status" || st["message"] != tt.wantMsg {
				t.Errorf("got %v, want a Status saying %q", st, tt.wantMsg)
			}
		})
	}
}

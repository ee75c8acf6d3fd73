package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// TestStorageQuota fills a store with a small quota through the API:
// creates and updates past it get a 500 Status that names the quota, as
// kube-apiserver passes on etcd's "database space exceeded"; the alarm
// metric is raised; deletes succeed; after compaction writes work again
// and the alarm clears.
func TestStorageQuota(t *testing.T) {
	const quota = 2 << 20
	backends := []struct {
		name string
		open func(t *testing.T) storage.Interface
	}{
		{"memory", func(*testing.T) storage.Interface { return memory.NewWithQuota(quota) }},
		{"bolt", func(t *testing.T) storage.Interface {
			s, err := bolt.Open(filepath.Join(t.TempDir(), "db"), bolt.Options{NoSync: true, QuotaBytes: quota})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			store := b.open(t)
			t.Cleanup(func() { store.Close() })
			c := clientFor(t, apiservertest.StartWith(t, apiservertest.Options{Storage: store}))
			const path = "/api/v1/namespaces/default/configmaps"
			data := map[string]any{"big": strings.Repeat("x", 64<<10)}

			var names []string
			var refused response
			for i := 0; i < 4*quota/(64<<10); i++ {
				name := fmt.Sprintf("cm-%03d", i)
				r := c.do("POST", path, configMap("default", name, data))
				if r.code != http.StatusCreated {
					refused = r
					break
				}
				names = append(names, name)
			}
			if refused.code == 0 {
				t.Fatalf("%d creates of 64 KiB were all accepted under a %d-byte quota", len(names), quota)
			}
			wantQuotaStatus(t, "create", refused)
			if got := quotaAlarm(c); got != "1" {
				t.Fatalf("setpoint_storage_quota_exceeded = %s past the quota, want 1", got)
			}
			wantQuotaStatus(t, "update", c.do("PUT", path+"/"+names[0], configMap("default", names[0], map[string]any{"small": "y"})))
			wantQuotaStatus(t, "patch", c.do("PATCH", path+"/"+names[0], `{"data":{"small":"y"}}`, "Content-Type", "application/merge-patch+json"))
			// Reads and deletes go on.
			c.must(http.StatusOK, "GET", path+"/"+names[0], nil)
			for _, name := range names {
				c.must(http.StatusOK, "DELETE", path+"/"+name, nil)
			}
			// The deleted values are history until compacted.
			wantQuotaStatus(t, "create after deletes", c.do("POST", path, configMap("default", "after", data)))
			rev, err := store.Revision(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Compact(context.Background(), rev); err != nil {
				t.Fatalf("Compact past the quota: %v", err)
			}
			if got := quotaAlarm(c); got != "0" {
				t.Fatalf("setpoint_storage_quota_exceeded = %s after deletes and compaction, want 0", got)
			}
			c.must(http.StatusCreated, "POST", path, configMap("default", "after", data))
			c.must(http.StatusOK, "PUT", path+"/after", configMap("default", "after", map[string]any{"small": "y"}))
		})
	}
}

func wantQuotaStatus(t *testing.T, what string, r response) {
	t.Helper()
	if r.code != http.StatusInternalServerError {
		t.Fatalf("%s past the quota: %d, want 500: %s", what, r.code, r.body)
	}
	st := r.json(t)
	msg := str(st["message"])
	if st["kind"] != "Status" || st["status"] != "Failure" || st["code"] != float64(500) || st["reason"] != nil ||
		!strings.HasPrefix(msg, "database space exceeded: ") || !strings.Contains(msg, fmt.Sprintf("quota %d bytes", 2<<20)) ||
		!strings.Contains(msg, "deletes still work") {
		t.Fatalf("%s past the quota: Status %s, want a 500 Failure without reason naming the quota", what, r.body)
	}
}

// quotaAlarm is the value of setpoint_storage_quota_exceeded on /metrics.
func quotaAlarm(c *client) string {
	c.t.Helper()
	r := c.do("GET", "/metrics", nil)
	for line := range strings.Lines(string(r.body)) {
		if v, ok := strings.CutPrefix(line, `setpoint_storage_quota_exceeded{storage_cluster_id="etcd-0"} `); ok {
			return strings.TrimSpace(v)
		}
	}
	c.t.Fatalf("setpoint_storage_quota_exceeded missing from /metrics")
	return ""
}

package apiserver

import (
	"fmt"
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/metrics"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// errQuotaExceeded answers a create or update the store refused for its
// quota. kube-apiserver passes etcd's "database space exceeded" through as
// a 500 with no reason; Setpoint answers the same code and reason, with a
// message that says what still works and how the store gets back under.
func errQuotaExceeded(q *storage.QuotaError) *StatusError {
	return newStatus(http.StatusInternalServerError, "", fmt.Sprintf(
		"database space exceeded: %d bytes in use, quota %d bytes (--quota-backend-bytes); "+
			"creates and updates are refused until deletes and compaction of old history bring usage under the quota, "+
			"and deletes still work", q.Used, q.Quota))
}

// storageUsage adapts a store's usage to the metrics' form.
func storageUsage(r storage.UsageReporter) func() (metrics.StorageUsage, error) {
	return func() (metrics.StorageUsage, error) {
		u, err := r.Usage()
		return metrics.StorageUsage{InUse: u.Bytes, Quota: u.Quota}, err
	}
}

package apiserver

import (
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/metrics"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// storageUsage adapts a store's usage to the metrics' form.
func storageUsage(r storage.UsageReporter) func() (metrics.StorageUsage, error) {
	return func() (metrics.StorageUsage, error) {
		u, err := r.Usage()
		return metrics.StorageUsage{InUse: u.Bytes, Quota: u.Quota}, err
	}
}

package metrics

import (
	"strings"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// StorageClusterID is the storage_cluster_id label of
// apiserver_storage_size_bytes. kube-apiserver numbers its storage
// backends "etcd-0", "etcd-1", ...; Setpoint has one database and reports
// it as kube reports a single backend, so that rules written against kube
// match as they are.
const StorageClusterID = "etcd-0"

// ResourceStats are one resource's storage figures, read at scrape time.
type ResourceStats struct {
	// Resource is the group-resource as kube writes it: the plural name,
	// then "." and the group unless it is the core group ("configmaps",
	// "widgets.example.com").
	Resource string
	// Objects is the number of stored objects.
	Objects int64
	// Watchers is the number of watchers open on the resource.
	Watchers int
	// CacheEvents is the number of events the resource's watch cache holds.
	CacheEvents int
}

type storageSource struct {
	resources func() []ResourceStats
	dbSize    func() (int64, error)
}

// StorageUsage is the store's logical size against its quota.
type StorageUsage struct {
	// InUse is the logical size in bytes: the data and retained history,
	// without room freed by compaction.
	InUse int64
	// Quota is the size past which writes are refused; 0 means none.
	Quota int64
}

// SetStorageUsage sets the callback that gives the store's usage, called
// at every scrape like SetStorageSource's; nil removes it. It becomes
// setpoint_storage_size_in_use_bytes, setpoint_storage_quota_bytes (only
// when there is a quota) and setpoint_storage_quota_exceeded, the alarm:
// 1 while usage is at or over the quota and the store refuses creates and
// updates, 0 once deletes and compaction bring it back under. (etcd's
// NOSPACE alarm stays raised until an operator disarms it; this one
// follows the store, which accepts writes again on its own.) When usage
// fails the figures are left out of that scrape.
func (m *Metrics) SetStorageUsage(usage func() (StorageUsage, error)) {
	m.storage.usage.Store(&usage)
}

// storageCollector reports the storage figures by calling the source at
// collect time.
type storageCollector struct {
	src   atomic.Pointer[storageSource]
	usage atomic.Pointer[func() (StorageUsage, error)]

	objects         *prometheus.Desc
	resourceObjects *prometheus.Desc
	size            *prometheus.Desc
	cacheCapacity   *prometheus.Desc
	watchers        *prometheus.Desc
	inUse           *prometheus.Desc
	quota           *prometheus.Desc
	quotaExceeded   *prometheus.Desc
}

func newStorageCollector() *storageCollector {
	return &storageCollector{
		objects: prometheus.NewDesc("apiserver_storage_objects",
			"Number of stored objects at the time of last check split by kind.",
			[]string{"resource"}, nil),
		resourceObjects: prometheus.NewDesc("apiserver_resource_objects",
			"Number of stored objects at the time of last check split by kind.",
			[]string{"group", "resource"}, nil),
		size: prometheus.NewDesc("apiserver_storage_size_bytes",
			"Size of the storage database file physically allocated in bytes.",
			[]string{"storage_cluster_id"}, nil),
		cacheCapacity: prometheus.NewDesc("watch_cache_capacity",
			"Number of events the watch cache holds, broken by resource type.",
			[]string{"group", "resource"}, nil),
		watchers: prometheus.NewDesc("setpoint_watch_cache_watchers",
			"Number of watchers open on the watch cache, broken by resource type.",
			[]string{"group", "resource"}, nil),
		inUse: prometheus.NewDesc("setpoint_storage_size_in_use_bytes",
			"Logical size of the storage database in bytes: its data and retained history, without space freed by compaction.",
			[]string{"storage_cluster_id"}, nil),
		quota: prometheus.NewDesc("setpoint_storage_quota_bytes",
			"Size of the storage database past which creates and updates are refused, in bytes.",
			[]string{"storage_cluster_id"}, nil),
		quotaExceeded: prometheus.NewDesc("setpoint_storage_quota_exceeded",
			"1 while the storage database is at or over its quota and refuses creates and updates, else 0.",
			[]string{"storage_cluster_id"}, nil),
	}
}

func (c *storageCollector) set(resources func() []ResourceStats, dbSize func() (int64, error)) {
	c.src.Store(&storageSource{resources: resources, dbSize: dbSize})
}

// Describe implements prometheus.Collector.
func (c *storageCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.objects
	ch <- c.resourceObjects
	ch <- c.size
	ch <- c.cacheCapacity
	ch <- c.watchers
	ch <- c.inUse
	ch <- c.quota
	ch <- c.quotaExceeded
}

// Collect implements prometheus.Collector.
func (c *storageCollector) Collect(ch chan<- prometheus.Metric) {
	c.collectUsage(ch)
	src := c.src.Load()
	if src == nil {
		return
	}
	if src.resources != nil {
		for _, rs := range src.resources() {
			group, resource := splitGroupResource(rs.Resource)
			ch <- prometheus.MustNewConstMetric(c.objects, prometheus.GaugeValue, float64(rs.Objects), rs.Resource)
			ch <- prometheus.MustNewConstMetric(c.resourceObjects, prometheus.GaugeValue, float64(rs.Objects), group, resource)
			ch <- prometheus.MustNewConstMetric(c.cacheCapacity, prometheus.GaugeValue, float64(rs.CacheEvents), group, resource)
			ch <- prometheus.MustNewConstMetric(c.watchers, prometheus.GaugeValue, float64(rs.Watchers), group, resource)
		}
	}
	if src.dbSize != nil {
		if n, err := src.dbSize(); err == nil {
			ch <- prometheus.MustNewConstMetric(c.size, prometheus.GaugeValue, float64(n), StorageClusterID)
		}
	}
}

func (c *storageCollector) collectUsage(ch chan<- prometheus.Metric) {
	fn := c.usage.Load()
	if fn == nil || *fn == nil {
		return
	}
	u, err := (*fn)()
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.inUse, prometheus.GaugeValue, float64(u.InUse), StorageClusterID)
	exceeded := 0.0
	if u.Quota > 0 {
		ch <- prometheus.MustNewConstMetric(c.quota, prometheus.GaugeValue, float64(u.Quota), StorageClusterID)
		if u.InUse >= u.Quota {
			exceeded = 1
		}
	}
	ch <- prometheus.MustNewConstMetric(c.quotaExceeded, prometheus.GaugeValue, exceeded, StorageClusterID)
}

// splitGroupResource splits "widgets.example.com" into group "example.com"
// and resource "widgets"; "configmaps" is in the core group "".
func splitGroupResource(s string) (group, resource string) {
	resource, group, _ = strings.Cut(s, ".")
	return group, resource
}

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

// storageCollector reports the storage figures by calling the source at
// collect time.
type storageCollector struct {
	src atomic.Pointer[storageSource]

	objects         *prometheus.Desc
	resourceObjects *prometheus.Desc
	size            *prometheus.Desc
	cacheCapacity   *prometheus.Desc
	watchers        *prometheus.Desc
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
}

// Collect implements prometheus.Collector.
func (c *storageCollector) Collect(ch chan<- prometheus.Metric) {
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

// splitGroupResource splits "widgets.example.com" into group "example.com"
// and resource "widgets"; "configmaps" is in the core group "".
func splitGroupResource(s string) (group, resource string) {
	resource, group, _ = strings.Cut(s, ".")
	return group, resource
}

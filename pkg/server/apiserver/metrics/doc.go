// Package metrics records what the API server does in Prometheus form,
// under kube-apiserver's metric names where they exist, so existing
// dashboards work.
//
// Each [Metrics] owns a private registry (never the process-wide default
// one), so many servers can run in one process, and serves it through
// [Metrics.Handler] in the Prometheus text exposition format, together with
// the Go runtime and process collectors.
//
// Names, labels and buckets follow kube-apiserver as of Kubernetes v1.37
// (k8s.io/apiserver v0.37: pkg/endpoints/metrics, pkg/storage/etcd3/metrics
// and pkg/storage/cacher/metrics):
//
//	apiserver_request_total{code,component,dry_run,group,resource,scope,subresource,verb,version}  counter
//	apiserver_request_duration_seconds{component,dry_run,group,resource,scope,subresource,verb,version}  histogram
//	apiserver_request_sli_duration_seconds{component,group,resource,scope,subresource,verb,version}  histogram
//	apiserver_longrunning_requests{component,group,resource,scope,subresource,verb,version}  gauge
//	apiserver_current_inflight_requests{request_kind}  gauge
//	apiserver_watch_events_total{group,resource,version}  counter
//	apiserver_watch_events_sizes{group,resource,version}  histogram
//	apiserver_storage_objects{resource}  gauge, at scrape time
//	apiserver_resource_objects{group,resource}  gauge, at scrape time
//	apiserver_storage_size_bytes{storage_cluster_id}  gauge, at scrape time
//	watch_cache_capacity{group,resource}  gauge, at scrape time
//	setpoint_watch_cache_watchers{group,resource}  gauge, at scrape time
//
// kube-apiserver has had no gauge of watchers per resource since it removed
// apiserver_registered_watchers in v1.25 (in favour of
// apiserver_longrunning_requests{verb="WATCH"}), so that one figure carries
// Setpoint's own prefix rather than a made-up kube name.
//
// Every label value is drawn from a bounded set: verbs are kube's uppercase
// ones (anything else is reported as "other", as kube does), scope is one of
// "resource", "namespace", "cluster" or "", dry_run is "All" or "", code is
// the numeric HTTP status, and group, version and resource come from the
// routes the server serves (requests that match no route use resource "").
package metrics

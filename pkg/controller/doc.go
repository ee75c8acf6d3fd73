// Package controller runs a reconciler: it turns informer events into
// reconcile.Requests on a workqueue and calls the reconciler from a pool
// of workers until the world matches each object's spec.
//
// It is the last step of the data path. Sources (For, Owns, Watches)
// register handlers on the shared informers of a Cluster (a manager);
// predicates drop events that cannot matter; the workqueue deduplicates
// requests, never hands one object to two workers, and spaces retries
// with its rate limiter. Each reconcile carries why it ran
// (reconcile.ReasonsFrom), and a reconcile that follows the reconciler's
// own writes waits until the cache has seen them (read your writes).
package controller

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
//
// # Sources
//
// A Source is anything with Start(ctx, Queue): the controller starts
// each of its sources at the beginning of every run, and a source adds
// requests to the Queue until ctx ends. For, Owns and Watches are
// sources of informer events; a reconcile caused by anything else (a
// channel of notifications, a timer, a webhook from an external
// system) comes from a Source the user writes, or a SourceFunc:
//
//	ticks := controller.SourceFunc(func(ctx context.Context, q controller.Queue) error {
//		go func() {
//			for {
//				select {
//				case <-ctx.Done():
//					return
//				case name := <-changed:
//					q.Add(reconcile.Request{NamespacedName: name},
//						reconcile.Reason{Trigger: reconcile.TriggerGeneric, Kind: "Webhook", Name: name.Name})
//				}
//			}
//		}()
//		return nil
//	})
//
// Start must return once the source is set up: the workers start after
// every source has started and the informers have synced.
package controller

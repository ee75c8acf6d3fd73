// Package leaderelection makes sure that of several replicas of a
// controller only one acts at a time. In the data path it sits beside the
// reconcilers, gating them, and talks to the API server only through the
// client, like any other controller:
//
//	candidates -> client -> Lease (coordination.k8s.io/v1) or lock ConfigMap -> API server
//	the leader's work (reconcilers, informers...) runs while its context lives
//
// Two ways to be leader:
//
//   - Elector: a lease that the leader renews and loses if it stops
//     renewing. Fast failover (LeaseDuration), and client-go's wire format,
//     so Setpoint and client-go candidates can share one Lease. Losing the
//     lease stops the leader's work and puts the elector back in the
//     running; it does not exit the process. Each term has a fencing
//     Token (TokenFrom, Fence) so the objects the leader writes can refuse
//     a deposed leader's late writes.
//   - ForLife: operator-lib's leader for life. A ConfigMap owned by the
//     leader's Pod is the lock; it is freed only when that Pod is gone
//     (garbage collection deletes the lock, or a waiting candidate finds
//     the owner deleted or evicted and deletes it). Never two leaders,
//     but failover waits for the Pod to go.
//
// Every duration is measured on the local Clock, never read from the
// lease's timestamps, so clock skew between machines does not matter.
// The leader_election_master_status{name} gauge says who leads; logs go to
// log/slog, and a clean shutdown logs no errors.
package leaderelection

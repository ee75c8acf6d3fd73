// Package manager runs an operator: one client, one set of shared
// informers, the controllers and other runnables that use them, leader
// election, and the HTTP endpoints that show it all (/healthz, /readyz,
// /metrics).
//
// It wraps the data path end to end. Its client reads from the shared
// informers (starting one for a kind on first read) and writes to the
// API server; its informers feed the controllers' queues; leader
// election decides which replica runs the leader-only runnables, and
// losing the lease stops them and re-enters the election instead of
// ending the process.
//
// Start order: the HTTP servers, then the informers, then runnables that
// every replica runs, then (once elected) the leader-only ones. Stop
// order is the reverse, bounded by GracefulShutdownTimeout.
package manager

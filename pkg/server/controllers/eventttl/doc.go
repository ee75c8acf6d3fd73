// Package eventttl expires Events: it deletes each one a TTL (an hour
// by default) after it was last written.
//
// kube-apiserver does this in storage, with an etcd lease per Event
// that each write renews. Setpoint's storage has no leases, so the
// expiry moves to this controller, fed by Event informers: it takes an
// Event's last write to be the newest of its timestamps
// (creationTimestamp, lastTimestamp, eventTime, series.lastObservedTime;
// events.k8s.io's deprecatedLastTimestamp), asks to look at the Event
// again exactly when that plus the TTL comes, and then deletes it,
// provided it was not written meanwhile. Every write of an Event through
// a recorder moves one of those timestamps, so a recurring Event lives
// on while it recurs.
//
//	recorder -> API server -> Event informers -> this controller
//	    -> requeue at expiry -> DELETE (precondition: the version read)
//
// events.k8s.io/v1 Events are core/v1 Events stored once and served in
// both versions, as in Kubernetes, so watching core/v1 Events expires
// both.
package eventttl

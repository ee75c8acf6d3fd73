package leaderelection

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// Bridges for the external tests, which run against a live server and so
// cannot live in this package (pkg/server imports it through the
// built-in controllers).

var OwnerUID = ownerUID

// RecordOf is recordOf field by field.
func RecordOf(spec *coordinationv1.LeaseSpec) (holder string, durationSeconds int32, acquire, renew time.Time, transitions int32) {
	r := recordOf(spec)
	return r.holder, r.durationSeconds, r.acquire, r.renew, r.transitions
}

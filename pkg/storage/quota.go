package storage

import (
	"errors"
	"fmt"
)

// DefaultQuota is the logical size past which a store refuses creates and
// updates: 2 GiB, etcd's default --quota-backend-bytes.
const DefaultQuota int64 = 2 << 30

// ErrQuotaExceeded is returned by Create and Update when the store is past
// its quota. Test with errors.Is; the error is a *QuotaError.
var ErrQuotaExceeded = errors.New("storage: quota exceeded")

// QuotaError reports a Create or Update refused because the store's data
// and retained history have reached its quota. Deletes and compaction are
// still served, and they are what brings the store back under its quota.
type QuotaError struct {
	// Used is the store's logical size in bytes when the write was refused.
	Used int64
	// Quota is the store's limit in bytes.
	Quota int64
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("storage: database space exceeded: %d bytes in use, quota %d bytes", e.Used, e.Quota)
}

// Is makes errors.Is(err, ErrQuotaExceeded) hold.
func (e *QuotaError) Is(target error) bool { return target == ErrQuotaExceeded }

// Usage is how much room a store's data and retained history take.
type Usage struct {
	// Bytes is the logical size: what the data and the history not yet
	// compacted occupy, without room freed by compaction and ready for
	// reuse. It is what the quota is checked against.
	Bytes int64
	// Quota is the limit on Bytes; 0 means none.
	Quota int64
}

// Exceeded reports whether the store refuses creates and updates.
func (u Usage) Exceeded() bool { return u.Quota > 0 && u.Bytes >= u.Quota }

// UsageReporter is implemented by stores that account for their size; the
// API server reports it as metrics.
type UsageReporter interface {
	Usage() (Usage, error)
}

// CheckQuota returns a *QuotaError when u is past its quota. Every
// backend applies this rule before a create or update: checking usage
// alone, rather than usage plus the write, lets a store overshoot by at
// most one write, and keeps "refusing writes" the same as "usage at or
// over the quota", with nothing to disarm (etcd keeps refusing until an
// operator disarms its alarm): writes are accepted again as soon as
// deletes and compaction bring usage below the quota.
func CheckQuota(u Usage) error {
	if u.Exceeded() {
		return &QuotaError{Used: u.Bytes, Quota: u.Quota}
	}
	return nil
}

package cache

import (
	"context"
	"errors"
	"fmt"
)

// Syncer is something whose initial state can be awaited: an Informer or
// a Registration.
type Syncer interface {
	HasSynced() bool
	Synced() <-chan struct{}
}

// WaitForCacheSync waits until every syncer has synced or ctx ends, and
// reports whether all synced.
func WaitForCacheSync(ctx context.Context, syncers ...Syncer) bool {
	return WaitForSync(ctx, syncers...) == nil
}

// WaitForSync is WaitForCacheSync that says why it gave up: the error
// names each informer not synced with its reflector's last error, so a
// missing CRD shows up as a 404 instead of a silent wait.
func WaitForSync(ctx context.Context, syncers ...Syncer) error {
	for _, s := range syncers {
		if s.HasSynced() {
			continue
		}
		select {
		case <-s.Synced():
		case <-ctx.Done():
			return notSynced(ctx.Err(), syncers)
		}
	}
	return nil
}

func notSynced(cause error, syncers []Syncer) error {
	errs := []error{cause}
	for _, s := range syncers {
		if s.HasSynced() {
			continue
		}
		name := fmt.Sprintf("%T", s)
		if n, ok := s.(interface{ Name() string }); ok {
			name = n.Name()
		}
		var last error
		if l, ok := s.(interface{ LastError() error }); ok {
			last = l.LastError()
		}
		if last != nil {
			errs = append(errs, fmt.Errorf("%s not synced: %w", name, last))
		} else {
			errs = append(errs, fmt.Errorf("%s not synced", name))
		}
	}
	return errors.Join(errs...)
}

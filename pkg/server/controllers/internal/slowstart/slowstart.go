// Package slowstart runs a workload controller's creates in batches of
// 1, 2, 4, ... as kube-controller-manager's controllers do: a template
// every create refuses fails once instead of once per missing pod, and a
// working one still reaches its count in a few round trips.
package slowstart

import "sync"

// Run calls fn for each item, in batches that double while every call
// of a batch succeeds, the calls of a batch at once. It stops after the
// first batch with a failure and returns how many calls succeeded and
// that batch's first error.
func Run[T any](items []T, fn func(T) error) (int, error) {
	done, next := 0, 0
	for batch := min(len(items), 1); batch > 0; batch = min(2*batch, len(items)-next) {
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for _, it := range items[next : next+batch] {
			wg.Go(func() {
				if err := fn(it); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		next += batch
		done += batch - len(errs)
		if len(errs) > 0 {
			return done, <-errs
		}
	}
	return done, nil
}

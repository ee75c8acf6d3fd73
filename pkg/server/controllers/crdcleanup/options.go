package crdcleanup

import "time"

// Options configure the CRD cleanup controller. The zero value is ready
// to use.
type Options struct {
	// Workers is how many CRDs are cleaned up at once; 0 means 2.
	Workers int
	// MinBackoff and MaxBackoff space the checks of a CRD whose custom
	// resources finalizers still hold: nothing announces that a
	// finalizer went, so the controller looks again, first after
	// MinBackoff, then twice as long each time up to MaxBackoff, and at
	// MinBackoff again once fewer remain. 0 means 50 ms and 30 s.
	MinBackoff, MaxBackoff time.Duration
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 2
	}
	return o
}

package namespace

import "time"

// Options configure the namespace controller. The zero value is ready
// to use.
type Options struct {
	// Workers is how many namespaces are cleaned up at once; 0 means 4.
	Workers int
	// MinBackoff and MaxBackoff space the checks of a namespace whose
	// content finalizers still hold: nothing announces that a finalizer
	// went, so the controller looks again, first after MinBackoff, then
	// twice as long each time up to MaxBackoff, and at MinBackoff again
	// once the content shrank. 0 means 50 ms and 30 s.
	MinBackoff, MaxBackoff time.Duration
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	return o
}

// Package collectors registers the built-in controllers' metrics, under
// kube-controller-manager's names, with their manager's registry: once
// per registry, so that a controller set up twice on one manager (as
// tests do) shares its series.
package collectors

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Histogram registers a histogram with opts in reg and returns it, or
// the one an earlier setup registered under the same name.
func Histogram(reg prometheus.Registerer, opts prometheus.HistogramOpts) (prometheus.Histogram, error) {
	h := prometheus.NewHistogram(opts)
	if err := reg.Register(h); err != nil {
		if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
			if h, ok := are.ExistingCollector.(prometheus.Histogram); ok {
				return h, nil
			}
		}
		return nil, err
	}
	return h, nil
}

package leaderelection

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// newStatusVec has the metric name and label client-go's elector exports,
// so dashboards built for it keep working.
func newStatusVec() *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "leader_election_master_status",
		Help: "1 while this process holds the named leader lock, 0 otherwise.",
	}, []string{"name"})
}

// statusGauge returns the gauge for name on reg, registering the vector
// on first use so several electors can share one Registerer. A nil reg
// gives a gauge nobody scrapes.
func statusGauge(reg prometheus.Registerer, name string) (prometheus.Gauge, error) {
	vec := newStatusVec()
	if reg != nil {
		if err := reg.Register(vec); err != nil {
			are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err)
			if !ok {
				return nil, err
			}
			if vec, ok = are.ExistingCollector.(*prometheus.GaugeVec); !ok {
				return nil, err
			}
		}
	}
	return vec.WithLabelValues(name), nil
}

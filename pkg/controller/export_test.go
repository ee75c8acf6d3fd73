package controller

import "github.com/prometheus/client_golang/prometheus"

// Bridges for the external tests, which run against a live server and so
// cannot live in this package (pkg/server imports it through the
// built-in controllers): the counters behind Metrics.

func (m *Metrics) Total() *prometheus.CounterVec    { return m.total }
func (m *Metrics) Terminal() *prometheus.CounterVec { return m.terminal }
func (m *Metrics) Panics() *prometheus.CounterVec   { return m.panics }
func (m *Metrics) Reasons() *prometheus.CounterVec  { return m.reasons }

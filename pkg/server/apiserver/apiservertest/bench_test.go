package apiservertest_test

import (
	"context"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// BenchmarkStart measures a cold start: a fresh memory store, fresh
// credentials, a server listed into its watch cache and serving HTTPS,
// then stopped. ns/op covers Run and stop; ready-ms is Run alone, the
// wait a test pays before its first request.
func BenchmarkStart(b *testing.B) {
	b.ReportAllocs()
	var ready time.Duration
	for b.Loop() {
		t0 := time.Now()
		_, stop, err := apiservertest.Run(context.Background(), apiservertest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		ready += time.Since(t0)
		stop()
	}
	b.ReportMetric(float64(ready.Microseconds())/1e3/float64(b.N), "ready-ms")
}

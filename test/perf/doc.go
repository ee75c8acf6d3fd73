// Package perf holds benchmarks that measure the server's figures end to
// end: LIST latency and peak memory for a large collection, WATCH fan-out
// latency to many watchers, the resident memory of the idle binary, and
// pod throughput: 10,000 pods created, scheduled and started on simulated
// nodes by `setpoint server --nodes 100` run as a process of its own,
// with its CPU, peak memory and the machine's load from other processes.
// They talk to a real server over HTTPS like any client and report their
// figures with testing.B.ReportMetric. Each skips itself unless the test
// binary runs with -bench, so `go test ./...` only compiles them:
//
//	go test -run '^$' -bench . -benchtime 3x ./test/perf/
package perf

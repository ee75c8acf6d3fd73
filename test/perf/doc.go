// Package perf holds benchmarks that measure the server's figures end to
// end: LIST latency and peak memory for a large collection, WATCH fan-out
// latency to many watchers, and the resident memory of the idle binary.
// They talk to a real server over HTTPS like any client and report their
// figures with testing.B.ReportMetric. Each skips itself unless the test
// binary runs with -bench, so `go test ./...` only compiles them:
//
//	go test -run '^$' -bench . -benchtime 3x ./test/perf/
package perf

package perf_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

const (
	listObjects    = 10000
	listObjectSize = 1024
	listNamespace  = "list10k"
	protobufAccept = "application/vnd.kubernetes.protobuf"
)

// BenchmarkList10kConfigMaps lists 10,000 ConfigMaps of about 1 KiB in one
// namespace, without a limit, as JSON and as protobuf. ns/op is the LIST
// latency, the body read to the end. Then, with the timer stopped, a few
// LISTs run while the heap is sampled: peak-extra-bytes is the most the
// heap grew above its post-GC level during one (server and client share
// the process; the client discards the body as it reads, so the growth is
// the server's working memory), response-bytes the body size, and
// peak/response their ratio (the target is below 1.5).
func BenchmarkList10kConfigMaps(b *testing.B) {
	requireBench(b)
	srv := startServer(b)
	a := newAPI(b, srv.Config, "")
	a.createNamespace(b, listNamespace)
	t0 := time.Now()
	a.createConfigMaps(b, listNamespace, listObjects, listObjectSize, 8)
	b.Logf("created %d ConfigMaps in %v", listObjects, time.Since(t0).Round(time.Millisecond))
	if got := listJSONItems(b, a); got != listObjects {
		b.Fatalf("JSON LIST has %d items, want %d", got, listObjects)
	}
	if got := listProtobufItems(b, a); got != listObjects {
		b.Fatalf("protobuf LIST has %d items, want %d", got, listObjects)
	}

	for _, proto := range []string{"HTTP1.1", "HTTP2"} {
		// Over HTTP/1.1 the client holds no more than a TLS record of the
		// body, so the peak is the server's; over HTTP/2 (client-go's
		// default) it also holds what flow control lets the server send
		// ahead, up to the 4 MiB stream window.
		a := newAPI(b, srv.Config, proto)
		for _, f := range []struct{ name, accept string }{
			{"JSON", "application/json"},
			{"Protobuf", protobufAccept},
		} {
			b.Run(f.name+"/"+proto, func(b *testing.B) {
				size := a.list(b, f.accept, proto) // warm up
				b.SetBytes(size)
				b.ResetTimer()
				for b.Loop() {
					a.list(b, f.accept, proto)
				}
				b.StopTimer()
				var peak, base uint64
				for range 3 {
					p, bs := peakHeap(func() { size = a.list(b, f.accept, proto) })
					peak, base = max(peak, p), bs
				}
				b.ReportMetric(float64(peak), "peak-extra-bytes")
				b.ReportMetric(float64(size), "response-bytes")
				b.ReportMetric(float64(peak)/float64(size), "peak/response")
				b.ReportMetric(float64(base)/(1<<20), "live-heap-MB")
			})
		}
	}
}

// list sends the LIST and reads its body into io.Discard, so the client
// keeps none of it; it returns the body's size.
func (a *api) list(b *testing.B, accept, proto string) int64 {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, a.base+"/api/v1/namespaces/"+listNamespace+"/configmaps", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := a.hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("LIST: %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, accept) {
		b.Fatalf("LIST: Content-Type %q, want %q", ct, accept)
	}
	if want := map[string]int{"HTTP1.1": 1, "HTTP2": 2}[proto]; resp.ProtoMajor != want {
		b.Fatalf("LIST over %s, want %s", resp.Proto, proto)
	}
	return n
}

// listJSONItems counts the items of a JSON LIST.
func listJSONItems(b *testing.B, a *api) int {
	b.Helper()
	var l struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"items"`
	}
	out := a.mustDo(b, http.MethodGet, "/api/v1/namespaces/"+listNamespace+"/configmaps", nil, http.StatusOK)
	if err := jsonUnmarshal(out, &l); err != nil {
		b.Fatal(err)
	}
	for i, it := range l.Items {
		if want := fmt.Sprintf("cm-%05d", i); it.Metadata.Name != want {
			b.Fatalf("item %d is %q, want %q", i, it.Metadata.Name, want)
		}
	}
	return len(l.Items)
}

// listProtobufItems decodes a protobuf LIST with client-go's serializer
// and counts its items.
func listProtobufItems(b *testing.B, a *api) int {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, a.base+"/api/v1/namespaces/"+listNamespace+"/configmaps", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", protobufAccept)
	resp, err := a.hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != protobufAccept {
		b.Fatalf("protobuf LIST answered %q", ct)
	}
	var l corev1.ConfigMapList
	if _, _, err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Decode(body, nil, &l); err != nil {
		b.Fatal(err)
	}
	for i, it := range l.Items {
		if want := fmt.Sprintf("cm-%05d", i); it.Name != want || len(it.Data["payload"]) < 500 {
			b.Fatalf("item %d is %q with %d payload bytes, want %q", i, it.Name, len(it.Data["payload"]), want)
		}
	}
	return len(l.Items)
}

package bench

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
)

// BenchmarkList10k: full LISTs of the 10,000 ConfigMaps of about 1 KiB
// that BenchmarkInformers16 reads, as JSON, ten of each kind per op: a
// consistent LIST (no resourceVersion: the server must answer at least
// as new as its storage) and a LIST at resourceVersion=0 (any state the
// server has). The client reads the body into a buffer it reuses,
// without decoding it, and does not ask for gzip (client-go would, and
// kube-apiserver would then compress), as the shared harness does, so the
// figures are the server's answer and its transfer. Figures: the median
// latency of each kind, and the server's CPU time per LIST. Run with
// -benchtime 1x.
func BenchmarkList10k(b *testing.B) {
	const n, lists = 10_000, 10
	srv := benchAPIServer(b)
	seedInformerNamespace(b, srv, n)
	cfg := srv.client("application/json")
	cfg.DisableCompression = true
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	var buf bytes.Buffer
	list := func(rv string) time.Duration {
		req := cs.CoreV1().RESTClient().Get().Namespace(informersNamespace).Resource("configmaps")
		if rv != "" {
			req = req.Param("resourceVersion", rv)
		}
		buf.Reset()
		t := time.Now()
		body, err := req.Stream(ctx)
		if err == nil {
			_, err = buf.ReadFrom(body)
			_ = body.Close()
		}
		d := time.Since(t)
		if err != nil {
			b.Fatal(err)
		}
		if buf.Len() < n*1024 {
			b.Fatalf("a LIST of %d bytes, want at least %d", buf.Len(), n*1024)
		}
		return d
	}
	// A first LIST of each kind warms the connection and the server.
	list("")
	list("0")
	var consistent, rv0 []time.Duration
	cpu0 := srv.cpu()
	b.ResetTimer()
	for range b.N {
		for range lists {
			consistent = append(consistent, list(""))
			rv0 = append(rv0, list("0"))
		}
	}
	b.StopTimer()
	cpu := srv.cpu() - cpu0
	slices.Sort(consistent)
	slices.Sort(rv0)
	b.ReportMetric(ms(percentile(consistent, 0.5)), "consistent-p50-ms")
	b.ReportMetric(ms(percentile(rv0, 0.5)), "rv0-p50-ms")
	if cpu > 0 {
		b.ReportMetric(ms(cpu)/float64(len(consistent)+len(rv0)), "server-cpu-ms/list")
	}
}

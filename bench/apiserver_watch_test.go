package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// BenchmarkWatchFanout: W watches of one namespace, as JSON, spread over
// clients of 50 watches each (one connection per client, as the shared
// harness spreads them), then 500 merge-patch updates at 100 per second,
// open loop, round-robin over 10 ConfigMaps. Every watch must receive
// every update's event exactly once, or the run fails. Figures: the
// updates' own latency (p50, p99), the latency from an update's send to
// each watch's receipt of its event (p50, p99), and the server's CPU
// time per event delivered. Cases w1000 and w1 give the updates'
// latency with a thousand watches and with one. Run with -benchtime 1x.
func BenchmarkWatchFanout(b *testing.B) {
	for _, watchers := range []int{1000, 1} {
		b.Run(fmt.Sprintf("w%d", watchers), func(b *testing.B) {
			srv := benchAPIServer(b)
			for range b.N {
				runWatchFanout(b, srv, watchers, 500, 100)
			}
		})
	}
}

const (
	watchObjects     = 10
	watchesPerClient = 50
)

func runWatchFanout(b *testing.B, srv apiServer, watchers, events int, rate float64) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	admin := kubernetes.NewForConfigOrDie(srv.client(""))
	ns := fmt.Sprintf("bench-watch-%d", time.Now().UnixNano())
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	var from string
	for i := range watchObjects + 1 { // the last one is the sentinel
		cm, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		from = cm.ResourceVersion
	}
	patch := func(name string, i int) (int64, error) {
		body := fmt.Appendf(nil, `{"data":{"i":"%d"}}`, i)
		cm, err := admin.CoreV1().ConfigMaps(ns).Patch(ctx, name, types.MergePatchType, body, metav1.PatchOptions{})
		if err != nil {
			return 0, err
		}
		return strconv.ParseInt(cm.ResourceVersion, 10, 64)
	}

	// Open the watches from the last create on, so none misses an event
	// whenever its stream starts.
	ws := make([]*benchWatch, watchers)
	var clients []*kubernetes.Clientset
	for i := range ws {
		if i%watchesPerClient == 0 {
			cfg := srv.client("application/json")
			cfg.DisableCompression = true
			clients = append(clients, kubernetes.NewForConfigOrDie(cfg))
		}
		body, err := clients[len(clients)-1].CoreV1().RESTClient().Get().Namespace(ns).Resource("configmaps").
			Param("watch", "true").Param("resourceVersion", from).Stream(ctx)
		if err != nil {
			b.Fatal(err)
		}
		ws[i] = startBenchWatch(body)
	}
	defer func() {
		for _, w := range ws {
			w.stop()
		}
	}()
	// A sentinel update that every watch sees: from then on all deliver.
	sentinel, err := patch(fmt.Sprintf("cm-%d", watchObjects), -1)
	if err != nil {
		b.Fatal(err)
	}
	for i, w := range ws {
		if err := w.waitFor(ctx, sentinel); err != nil {
			b.Fatalf("watch %d: %v", i, err)
		}
	}

	type update struct {
		sent time.Time
		took time.Duration
		rev  int64
		err  error
	}
	updates := make([]update, events)
	interval := time.Duration(float64(time.Second) / rate)
	var wg sync.WaitGroup
	cpu0 := srv.cpu()
	b.ResetTimer()
	start := time.Now()
	for i := range events {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		wg.Go(func() {
			u := &updates[i]
			u.sent = time.Now()
			u.rev, u.err = patch(fmt.Sprintf("cm-%d", i%watchObjects), i)
			u.took = time.Since(u.sent)
		})
	}
	wg.Wait()
	last := int64(0)
	sentAt := make(map[int64]time.Time, events)
	var took []time.Duration
	for _, u := range updates {
		if u.err != nil {
			b.Fatal(u.err)
		}
		sentAt[u.rev] = u.sent
		took = append(took, u.took)
		last = max(last, u.rev)
	}
	for i, w := range ws {
		if err := w.waitFor(ctx, last); err != nil {
			b.Fatalf("watch %d: %v", i, err)
		}
	}
	b.StopTimer()
	cpu := srv.cpu() - cpu0

	var receipts []time.Duration
	for i, w := range ws {
		seen := make(map[int64]bool, events)
		for _, r := range w.received() {
			sent, ok := sentAt[r.rev]
			if !ok {
				continue // the sentinel
			}
			if seen[r.rev] {
				b.Fatalf("watch %d received the event of revision %d twice", i, r.rev)
			}
			seen[r.rev] = true
			receipts = append(receipts, r.at.Sub(sent))
		}
		if len(seen) != events {
			b.Fatalf("watch %d received %d of %d events", i, len(seen), events)
		}
	}
	slices.Sort(took)
	slices.Sort(receipts)
	b.ReportMetric(ms(percentile(took, 0.50)), "update-p50-ms")
	b.ReportMetric(ms(percentile(took, 0.99)), "update-p99-ms")
	b.ReportMetric(ms(percentile(receipts, 0.50)), "receipt-p50-ms")
	b.ReportMetric(ms(percentile(receipts, 0.99)), "receipt-p99-ms")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(len(receipts)), "server-cpu-us/event")
	}
}

// benchWatch reads one watch stream, noting when each event arrived and
// the resourceVersion of its object, without decoding it: both servers
// write one JSON event per line, and an event's first resourceVersion is
// its object's.
type benchWatch struct {
	body io.ReadCloser
	done chan struct{}

	mu     sync.Mutex
	got    []receipt
	newest int64
	err    error
	wake   chan struct{} // closed and replaced on every event
}

type receipt struct {
	rev int64
	at  time.Time
}

func startBenchWatch(body io.ReadCloser) *benchWatch {
	w := &benchWatch{body: body, done: make(chan struct{}), wake: make(chan struct{})}
	go w.read()
	return w
}

var rvField = []byte(`"resourceVersion":"`)

func (w *benchWatch) read() {
	defer close(w.done)
	r := bufio.NewReaderSize(w.body, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		at := time.Now()
		if len(bytes.TrimSpace(line)) > 0 {
			rev, perr := eventRevision(line)
			w.update(func() {
				if perr != nil {
					w.err = perr
				} else {
					w.got = append(w.got, receipt{rev, at})
					w.newest = max(w.newest, rev)
				}
			})
		}
		if err != nil {
			w.update(func() {
				if w.err == nil {
					w.err = fmt.Errorf("stream ended: %w", err)
				}
			})
			return
		}
	}
}

// update changes the watch's state under its lock and wakes its waiters.
func (w *benchWatch) update(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
	close(w.wake)
	w.wake = make(chan struct{})
}

func eventRevision(line []byte) (int64, error) {
	i := bytes.Index(line, rvField)
	if i < 0 {
		return 0, fmt.Errorf("an event without a resourceVersion: %.200s", line)
	}
	rest := line[i+len(rvField):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return 0, errors.New("an unterminated resourceVersion")
	}
	return strconv.ParseInt(string(rest[:j]), 10, 64)
}

// waitFor waits until the watch has received an event of revision rev or
// later.
func (w *benchWatch) waitFor(ctx context.Context, rev int64) error {
	for {
		w.mu.Lock()
		newest, err, wake := w.newest, w.err, w.wake
		w.mu.Unlock()
		switch {
		case newest >= rev:
			return nil
		case err != nil:
			return err
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return fmt.Errorf("waiting for revision %d (newest %d): %w", rev, newest, ctx.Err())
		}
	}
}

func (w *benchWatch) received() []receipt {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.got)
}

func (w *benchWatch) stop() {
	_ = w.body.Close()
	<-w.done
}

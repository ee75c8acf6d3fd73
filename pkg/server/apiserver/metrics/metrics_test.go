package metrics

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// --- helpers ---

// scrape fetches m's Handler through an HTTP server and parses the text
// exposition.
func scrape(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("scrape: status %d: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("scrape: Content-Type %q, want text/plain", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse exposition: %v", err)
	}
	return mfs
}

// gather reads m's registry directly.
func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	got, err := m.reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	mfs := make(map[string]*dto.MetricFamily, len(got))
	for _, mf := range got {
		mfs[mf.GetName()] = mf
	}
	return mfs
}

// labelsOf returns a metric's labels as a map.
func labelsOf(m *dto.Metric) map[string]string {
	l := make(map[string]string, len(m.GetLabel()))
	for _, lp := range m.GetLabel() {
		l[lp.GetName()] = lp.GetValue()
	}
	return l
}

// find returns the series of family name whose labels are exactly want, or
// nil.
func find(mfs map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	mf := mfs[name]
	if mf == nil {
		return nil
	}
	for _, m := range mf.GetMetric() {
		got := labelsOf(m)
		if len(got) != len(want) {
			continue
		}
		match := true
		for k, v := range want {
			if gv, ok := got[k]; !ok || gv != v {
				match = false
				break
			}
		}
		if match {
			return m
		}
	}
	return nil
}

// labelNames returns the sorted label names of a family's first series.
func labelNames(mf *dto.MetricFamily) []string {
	if len(mf.GetMetric()) == 0 {
		return nil
	}
	var names []string
	for _, lp := range mf.GetMetric()[0].GetLabel() {
		names = append(names, lp.GetName())
	}
	sort.Strings(names)
	return names
}

// reqLabels are apiserver_request_total's labels for r and code, as kube
// writes them.
func reqLabels(verb, group, version, resource, subresource, scope, dryRun, code string) prometheus.Labels {
	return prometheus.Labels{
		"verb": verb, "dry_run": dryRun, "group": group, "version": version,
		"resource": resource, "subresource": subresource, "scope": scope,
		"component": "apiserver", "code": code,
	}
}

// withoutCode drops the code label, leaving the duration histogram's.
func withoutCode(l prometheus.Labels) prometheus.Labels {
	out := prometheus.Labels{}
	for k, v := range l {
		if k != "code" {
			out[k] = v
		}
	}
	return out
}

// --- requests ---

func TestObserveRequestCounts(t *testing.T) {
	type call struct {
		r    Request
		code int
	}
	type series struct {
		labels prometheus.Labels
		value  float64
	}
	getCM := Request{Verb: "GET", Version: "v1", Resource: "configmaps", Scope: "resource"}
	createWidget := Request{Verb: "CREATE", Group: "example.com", Version: "v1", Resource: "widgets", Scope: "resource", DryRun: true}
	tests := []struct {
		name  string
		calls []call
		want  []series
	}{
		{
			name:  "named get",
			calls: []call{{getCM, 200}},
			want:  []series{{reqLabels("GET", "", "v1", "configmaps", "", "resource", "", "200"), 1}},
		},
		{
			name:  "dry run counts under dry_run=All",
			calls: []call{{createWidget, 201}, {createWidget, 201}},
			want:  []series{{reqLabels("CREATE", "example.com", "v1", "widgets", "", "resource", "All", "201"), 2}},
		},
		{
			name:  "codes are separate series",
			calls: []call{{getCM, 200}, {getCM, 404}, {getCM, 200}},
			want: []series{
				{reqLabels("GET", "", "v1", "configmaps", "", "resource", "", "200"), 2},
				{reqLabels("GET", "", "v1", "configmaps", "", "resource", "", "404"), 1},
			},
		},
		{
			name:  "subresource",
			calls: []call{{Request{Verb: "UPDATE", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "status", Scope: "resource"}, 200}},
			want:  []series{{reqLabels("UPDATE", "apps", "v1", "deployments", "status", "resource", "", "200"), 1}},
		},
		{
			name:  "lowercase verb is reported uppercase",
			calls: []call{{Request{Verb: "list", Version: "v1", Resource: "pods", Scope: "namespace"}, 200}},
			want:  []series{{reqLabels("LIST", "", "v1", "pods", "", "namespace", "", "200"), 1}},
		},
		{
			name:  "legacy WATCHLIST folds into WATCH",
			calls: []call{{Request{Verb: "WATCHLIST", Version: "v1", Resource: "pods", Scope: "cluster"}, 200}},
			want:  []series{{reqLabels("WATCH", "", "v1", "pods", "", "cluster", "", "200"), 1}},
		},
		{
			name: "unknown verbs fold into other",
			calls: []call{
				{Request{Verb: "FROB", Version: "v1", Resource: "pods", Scope: "cluster"}, 405},
				{Request{Verb: "BLAH", Version: "v1", Resource: "pods", Scope: "cluster"}, 405},
			},
			want: []series{{reqLabels("other", "", "v1", "pods", "", "cluster", "", "405"), 2}},
		},
		{
			name:  "unknown scope folds into empty",
			calls: []call{{Request{Verb: "LIST", Version: "v1", Resource: "pods", Scope: "galaxy"}, 200}},
			want:  []series{{reqLabels("LIST", "", "v1", "pods", "", "", "", "200"), 1}},
		},
		{
			name:  "unroutable request has empty resource",
			calls: []call{{Request{Verb: "GET"}, 404}},
			want:  []series{{reqLabels("GET", "", "", "", "", "", "", "404"), 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			for _, c := range tt.calls {
				m.ObserveRequest(c.r, c.code, 10*time.Millisecond)
			}
			if got, want := testutil.CollectAndCount(m.requests), len(tt.want); got != want {
				t.Errorf("apiserver_request_total series = %d, want %d", got, want)
			}
			for _, s := range tt.want {
				if got := testutil.ToFloat64(m.requests.With(s.labels)); got != s.value {
					t.Errorf("apiserver_request_total%v = %v, want %v", s.labels, got, s.value)
				}
				// Every request is observed in the duration histogram,
				// under the same labels less code.
				mfs := gather(t, m)
				h := find(mfs, "apiserver_request_duration_seconds", withoutCode(s.labels))
				if h == nil {
					t.Fatalf("no apiserver_request_duration_seconds%v", withoutCode(s.labels))
				}
			}
		})
	}
}

func TestRequestDurationBuckets(t *testing.T) {
	wantBounds := []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
		4, 5, 6, 8, 10, 15, 20, 30, 45, 60}
	r := Request{Verb: "LIST", Version: "v1", Resource: "pods", Scope: "cluster"}
	labels := withoutCode(reqLabels("LIST", "", "v1", "pods", "", "cluster", "", "200"))
	tests := []struct {
		name    string
		d       time.Duration
		wantLE  float64 // smallest bucket bound holding d; 0 for +Inf only
		wantSum float64
	}{
		{"1ms", time.Millisecond, 0.005, 0.001},
		{"exactly 5ms", 5 * time.Millisecond, 0.005, 0.005},
		{"30ms", 30 * time.Millisecond, 0.05, 0.03},
		{"1s", time.Second, 1, 1},
		{"59s", 59 * time.Second, 60, 59},
		{"beyond the top bucket", 90 * time.Second, 0, 90},
		{"negative is clamped to zero", -time.Second, 0.005, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			m.ObserveRequest(r, 200, tt.d)
			mfs := gather(t, m)
			for _, name := range []string{"apiserver_request_duration_seconds", "apiserver_request_sli_duration_seconds"} {
				want := labels
				if name == "apiserver_request_sli_duration_seconds" {
					want = prometheus.Labels{}
					for k, v := range labels {
						if k != "dry_run" {
							want[k] = v
						}
					}
				}
				s := find(mfs, name, want)
				if s == nil {
					t.Fatalf("no %s%v", name, want)
				}
				h := s.GetHistogram()
				if got := h.GetSampleCount(); got != 1 {
					t.Errorf("%s count = %d, want 1", name, got)
				}
				if got := h.GetSampleSum(); got < tt.wantSum-1e-9 || got > tt.wantSum+1e-9 {
					t.Errorf("%s sum = %v, want %v", name, got, tt.wantSum)
				}
				for _, b := range h.GetBucket() {
					want := uint64(0)
					if tt.wantLE != 0 && b.GetUpperBound() >= tt.wantLE {
						want = 1
					}
					if b.GetCumulativeCount() != want {
						t.Errorf("%s bucket le=%v = %d, want %d", name, b.GetUpperBound(), b.GetCumulativeCount(), want)
					}
				}
			}
			// The request histogram has kube's buckets exactly.
			var bounds []float64
			for _, b := range find(mfs, "apiserver_request_duration_seconds", labels).GetHistogram().GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
			}
			if !slices.Equal(bounds, wantBounds) {
				t.Errorf("apiserver_request_duration_seconds buckets = %v, want %v", bounds, wantBounds)
			}
		})
	}
}

// TestSLIHistogramSkips checks which requests reach
// apiserver_request_sli_duration_seconds: like kube, all but watches and
// dry runs; apiserver_request_duration_seconds sees every one.
func TestSLIHistogramSkips(t *testing.T) {
	tests := []struct {
		name    string
		r       Request
		wantSLI bool
	}{
		{"list", Request{Verb: "LIST", Version: "v1", Resource: "pods", Scope: "namespace"}, true},
		{"watch", Request{Verb: "WATCH", Version: "v1", Resource: "pods", Scope: "namespace"}, false},
		{"lowercase watch", Request{Verb: "watch", Version: "v1", Resource: "pods", Scope: "namespace"}, false},
		{"dry-run create", Request{Verb: "CREATE", Version: "v1", Resource: "pods", Scope: "resource", DryRun: true}, false},
		{"connect", Request{Verb: "CONNECT", Version: "v1", Resource: "pods", Subresource: "exec", Scope: "resource"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			m.ObserveRequest(tt.r, 200, 2*time.Second)
			if got := testutil.CollectAndCount(m.durations); got != 1 {
				t.Errorf("apiserver_request_duration_seconds series = %d, want 1", got)
			}
			want := 0
			if tt.wantSLI {
				want = 1
			}
			if got := testutil.CollectAndCount(m.sli); got != want {
				t.Errorf("apiserver_request_sli_duration_seconds series = %d, want %d", got, want)
			}
		})
	}
}

// --- gauges ---

func TestLongRunning(t *testing.T) {
	watchPods := Request{Verb: "WATCH", Version: "v1", Resource: "pods", Scope: "namespace"}
	watchPodsDry := watchPods
	watchPodsDry.DryRun = true // no dry_run label: same series
	execPod := Request{Verb: "CONNECT", Version: "v1", Resource: "pods", Subresource: "exec", Scope: "resource"}
	podsLabels := prometheus.Labels{"verb": "WATCH", "group": "", "version": "v1", "resource": "pods", "subresource": "", "scope": "namespace", "component": "apiserver"}
	execLabels := prometheus.Labels{"verb": "CONNECT", "group": "", "version": "v1", "resource": "pods", "subresource": "exec", "scope": "resource", "component": "apiserver"}

	m := New()
	var dones []func()
	steps := []struct {
		name     string
		do       func()
		wantPods float64
		wantExec float64
	}{
		{"first watch", func() { dones = append(dones, m.LongRunning(watchPods)) }, 1, 0},
		{"second watch", func() { dones = append(dones, m.LongRunning(watchPodsDry)) }, 2, 0},
		{"exec", func() { dones = append(dones, m.LongRunning(execPod)) }, 2, 1},
		{"first watch ends", func() { dones[0]() }, 1, 1},
		{"exec ends", func() { dones[2]() }, 1, 0},
		{"second watch ends", func() { dones[1]() }, 0, 0},
	}
	for _, s := range steps {
		s.do()
		if got := testutil.ToFloat64(m.longRunning.With(podsLabels)); got != s.wantPods {
			t.Errorf("after %s: watch gauge = %v, want %v", s.name, got, s.wantPods)
		}
		if got := testutil.ToFloat64(m.longRunning.With(execLabels)); got != s.wantExec {
			t.Errorf("after %s: exec gauge = %v, want %v", s.name, got, s.wantExec)
		}
	}
}

func TestInflight(t *testing.T) {
	m := New()
	var dones []func()
	steps := []struct {
		name                   string
		do                     func()
		wantMutating, wantRead float64
	}{
		{"read", func() { dones = append(dones, m.Inflight(false)) }, 0, 1},
		{"write", func() { dones = append(dones, m.Inflight(true)) }, 1, 1},
		{"another write", func() { dones = append(dones, m.Inflight(true)) }, 2, 1},
		{"read done", func() { dones[0]() }, 2, 0},
		{"writes done", func() { dones[1](); dones[2]() }, 0, 0},
	}
	for _, s := range steps {
		s.do()
		if got := testutil.ToFloat64(m.inflight.WithLabelValues("mutating")); got != s.wantMutating {
			t.Errorf("after %s: mutating = %v, want %v", s.name, got, s.wantMutating)
		}
		if got := testutil.ToFloat64(m.inflight.WithLabelValues("readOnly")); got != s.wantRead {
			t.Errorf("after %s: readOnly = %v, want %v", s.name, got, s.wantRead)
		}
	}
}

func TestDropped(t *testing.T) {
	m := New()
	tests := []struct {
		kind string
		req  Request
		want map[string]string // terminations labels
	}{
		{ReadOnlyKind, Request{Verb: "watch", Resource: "configmaps", Version: "v1", Scope: ScopeNamespace},
			map[string]string{"verb": "WATCH", "group": "", "version": "v1", "resource": "configmaps", "subresource": "", "scope": "namespace", "component": Component, "code": "429"}},
		{MutatingKind, Request{Verb: "create", Group: "apps", Version: "v1", Resource: "deployments", Scope: ScopeResource, DryRun: true},
			map[string]string{"verb": "CREATE", "group": "apps", "version": "v1", "resource": "deployments", "subresource": "", "scope": "resource", "component": Component, "code": "429"}},
	}
	for _, tt := range tests {
		m.Dropped(tt.kind, tt.req)
	}
	mfs := scrape(t, m)
	for _, tt := range tests {
		if got := find(mfs, "apiserver_dropped_requests_total", map[string]string{"request_kind": tt.kind}); got == nil || got.GetCounter().GetValue() != 1 {
			t.Errorf("apiserver_dropped_requests_total{request_kind=%q} = %v, want 1", tt.kind, got)
		}
		if got := find(mfs, "apiserver_request_terminations_total", tt.want); got == nil || got.GetCounter().GetValue() != 1 {
			t.Errorf("apiserver_request_terminations_total%v = %v, want 1", tt.want, got)
		}
	}
}

// --- watch events ---

func TestWatchEvent(t *testing.T) {
	type ev struct {
		group, version, resource string
		size                     int
	}
	tests := []struct {
		name   string
		events []ev
		labels prometheus.Labels
		count  float64
		// buckets maps bucket bounds to the cumulative count wanted there.
		buckets map[float64]uint64
	}{
		{
			name:    "core resource",
			events:  []ev{{"", "v1", "configmaps", 100}, {"", "v1", "configmaps", 1500}, {"", "v1", "configmaps", 1 << 20}},
			labels:  prometheus.Labels{"group": "", "version": "v1", "resource": "configmaps"},
			count:   3,
			buckets: map[float64]uint64{1024: 1, 2048: 2, 4096: 2, 131072: 2},
		},
		{
			name:    "custom resource",
			events:  []ev{{"example.com", "v1", "widgets", 4096}},
			labels:  prometheus.Labels{"group": "example.com", "version": "v1", "resource": "widgets"},
			count:   1,
			buckets: map[float64]uint64{1024: 0, 2048: 0, 4096: 1, 8192: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			for _, e := range tt.events {
				m.WatchEvent(e.group, e.version, e.resource, e.size)
			}
			if got := testutil.ToFloat64(m.watchEvents.With(tt.labels)); got != tt.count {
				t.Errorf("apiserver_watch_events_total = %v, want %v", got, tt.count)
			}
			s := find(gather(t, m), "apiserver_watch_events_sizes", tt.labels)
			if s == nil {
				t.Fatalf("no apiserver_watch_events_sizes%v", tt.labels)
			}
			var bounds []float64
			for _, b := range s.GetHistogram().GetBucket() {
				bounds = append(bounds, b.GetUpperBound())
				if want, ok := tt.buckets[b.GetUpperBound()]; ok && b.GetCumulativeCount() != want {
					t.Errorf("bucket le=%v = %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
				}
			}
			wantBounds := []float64{1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072}
			if !slices.Equal(bounds, wantBounds) {
				t.Errorf("buckets = %v, want %v", bounds, wantBounds)
			}
		})
	}
}

// --- storage ---

func TestStorageSourceAtScrapeTime(t *testing.T) {
	var mu sync.Mutex
	stats := []ResourceStats{
		{Resource: "configmaps", Objects: 3, Watchers: 2, CacheEvents: 40},
		{Resource: "widgets.example.com", Objects: 7, Watchers: 0, CacheEvents: 5},
	}
	var size atomic.Int64
	size.Store(32768)
	var sizeErr atomic.Bool

	m := New()
	m.SetStorageSource(func() []ResourceStats {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(stats)
	}, func() (int64, error) {
		if sizeErr.Load() {
			return 0, errors.New("stat failed")
		}
		return size.Load(), nil
	})

	type sample struct {
		name   string
		labels map[string]string
		value  float64 // <0: the series must be absent
	}
	steps := []struct {
		name   string
		change func()
		want   []sample
	}{
		{
			name:   "initial",
			change: func() {},
			want: []sample{
				{"apiserver_storage_objects", map[string]string{"resource": "configmaps"}, 3},
				{"apiserver_storage_objects", map[string]string{"resource": "widgets.example.com"}, 7},
				{"apiserver_resource_objects", map[string]string{"group": "", "resource": "configmaps"}, 3},
				{"apiserver_resource_objects", map[string]string{"group": "example.com", "resource": "widgets"}, 7},
				{"watch_cache_capacity", map[string]string{"group": "", "resource": "configmaps"}, 40},
				{"watch_cache_capacity", map[string]string{"group": "example.com", "resource": "widgets"}, 5},
				{"setpoint_watch_cache_watchers", map[string]string{"group": "", "resource": "configmaps"}, 2},
				{"setpoint_watch_cache_watchers", map[string]string{"group": "example.com", "resource": "widgets"}, 0},
				{"apiserver_storage_size_bytes", map[string]string{"storage_cluster_id": "etcd-0"}, 32768},
			},
		},
		{
			name: "figures change between scrapes",
			change: func() {
				mu.Lock()
				stats[0].Objects, stats[0].Watchers = 4, 3
				stats = stats[:1]
				mu.Unlock()
				size.Store(65536)
			},
			want: []sample{
				{"apiserver_storage_objects", map[string]string{"resource": "configmaps"}, 4},
				{"apiserver_storage_objects", map[string]string{"resource": "widgets.example.com"}, -1},
				{"setpoint_watch_cache_watchers", map[string]string{"group": "", "resource": "configmaps"}, 3},
				{"apiserver_storage_size_bytes", map[string]string{"storage_cluster_id": "etcd-0"}, 65536},
			},
		},
		{
			name:   "size error leaves the size out",
			change: func() { sizeErr.Store(true) },
			want: []sample{
				{"apiserver_storage_objects", map[string]string{"resource": "configmaps"}, 4},
				{"apiserver_storage_size_bytes", map[string]string{"storage_cluster_id": "etcd-0"}, -1},
			},
		},
	}
	for _, s := range steps {
		s.change()
		mfs := scrape(t, m)
		for _, w := range s.want {
			got := find(mfs, w.name, w.labels)
			switch {
			case w.value < 0 && got != nil:
				t.Errorf("%s: %s%v present, want absent", s.name, w.name, w.labels)
			case w.value >= 0 && got == nil:
				t.Errorf("%s: %s%v absent", s.name, w.name, w.labels)
			case w.value >= 0 && got.GetGauge().GetValue() != w.value:
				t.Errorf("%s: %s%v = %v, want %v", s.name, w.name, w.labels, got.GetGauge().GetValue(), w.value)
			}
		}
	}
}

func TestStorageSourceUnsetOrNil(t *testing.T) {
	storageNames := []string{"apiserver_storage_objects", "apiserver_resource_objects", "apiserver_storage_size_bytes", "watch_cache_capacity", "setpoint_watch_cache_watchers"}
	tests := []struct {
		name string
		set  func(m *Metrics)
		want map[string]int // series per family
	}{
		{"never set", func(*Metrics) {}, map[string]int{}},
		{"both nil", func(m *Metrics) { m.SetStorageSource(nil, nil) }, map[string]int{}},
		{"size only", func(m *Metrics) {
			m.SetStorageSource(nil, func() (int64, error) { return 1, nil })
		}, map[string]int{"apiserver_storage_size_bytes": 1}},
		{"resources only", func(m *Metrics) {
			m.SetStorageSource(func() []ResourceStats { return []ResourceStats{{Resource: "pods"}} }, nil)
		}, map[string]int{"apiserver_storage_objects": 1, "apiserver_resource_objects": 1, "watch_cache_capacity": 1, "setpoint_watch_cache_watchers": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			tt.set(m)
			for _, name := range storageNames {
				if got := testutil.CollectAndCount(m.storage, name); got != tt.want[name] {
					t.Errorf("%s series = %d, want %d", name, got, tt.want[name])
				}
			}
		})
	}
}

// A resource listed twice must not blank the scrape.
func TestStorageDuplicateResourceStillScrapes(t *testing.T) {
	m := New()
	m.ObserveRequest(Request{Verb: "GET", Version: "v1", Resource: "pods", Scope: "resource"}, 200, time.Millisecond)
	m.SetStorageSource(func() []ResourceStats {
		return []ResourceStats{{Resource: "pods", Objects: 1}, {Resource: "pods", Objects: 2}}
	}, nil)
	mfs := scrape(t, m)
	if mfs["apiserver_request_total"] == nil {
		t.Error("apiserver_request_total missing from the scrape")
	}
	if find(mfs, "apiserver_storage_objects", map[string]string{"resource": "pods"}) == nil {
		t.Error("apiserver_storage_objects{resource=pods} missing from the scrape")
	}
}

func TestSplitGroupResource(t *testing.T) {
	tests := []struct{ in, group, resource string }{
		{"configmaps", "", "configmaps"},
		{"widgets.example.com", "example.com", "widgets"},
		{"deployments.apps", "apps", "deployments"},
		{"", "", ""},
	}
	for _, tt := range tests {
		g, r := splitGroupResource(tt.in)
		if g != tt.group || r != tt.resource {
			t.Errorf("splitGroupResource(%q) = %q, %q; want %q, %q", tt.in, g, r, tt.group, tt.resource)
		}
	}
}

// --- exposition ---

// TestHandlerExposition scrapes Handler and checks every family's name,
// type and label names against kube-apiserver's.
func TestHandlerExposition(t *testing.T) {
	m := New()
	m.ObserveRequest(Request{Verb: "GET", Version: "v1", Resource: "pods", Scope: "resource"}, 200, 3*time.Millisecond)
	done := m.LongRunning(Request{Verb: "WATCH", Version: "v1", Resource: "pods", Scope: "namespace"})
	defer done()
	doneInflight := m.Inflight(true)
	defer doneInflight()
	m.WatchEvent("", "v1", "pods", 512)
	m.SetStorageSource(func() []ResourceStats {
		return []ResourceStats{{Resource: "pods", Objects: 1, Watchers: 1, CacheEvents: 1}}
	}, func() (int64, error) { return 4096, nil })

	mfs := scrape(t, m)
	tests := []struct {
		name   string
		typ    dto.MetricType
		labels string // sorted, comma-separated
	}{
		{"apiserver_request_total", dto.MetricType_COUNTER, "code,component,dry_run,group,resource,scope,subresource,verb,version"},
		{"apiserver_request_duration_seconds", dto.MetricType_HISTOGRAM, "component,dry_run,group,resource,scope,subresource,verb,version"},
		{"apiserver_request_sli_duration_seconds", dto.MetricType_HISTOGRAM, "component,group,resource,scope,subresource,verb,version"},
		{"apiserver_longrunning_requests", dto.MetricType_GAUGE, "component,group,resource,scope,subresource,verb,version"},
		{"apiserver_current_inflight_requests", dto.MetricType_GAUGE, "request_kind"},
		{"apiserver_watch_events_total", dto.MetricType_COUNTER, "group,resource,version"},
		{"apiserver_watch_events_sizes", dto.MetricType_HISTOGRAM, "group,resource,version"},
		{"apiserver_storage_objects", dto.MetricType_GAUGE, "resource"},
		{"apiserver_resource_objects", dto.MetricType_GAUGE, "group,resource"},
		{"apiserver_storage_size_bytes", dto.MetricType_GAUGE, "storage_cluster_id"},
		{"watch_cache_capacity", dto.MetricType_GAUGE, "group,resource"},
		{"setpoint_watch_cache_watchers", dto.MetricType_GAUGE, "group,resource"},
		{"go_goroutines", dto.MetricType_GAUGE, ""},
		{"process_cpu_seconds_total", dto.MetricType_COUNTER, ""},
	}
	for _, tt := range tests {
		mf := mfs[tt.name]
		if mf == nil {
			t.Errorf("%s missing from the exposition", tt.name)
			continue
		}
		if mf.GetType() != tt.typ {
			t.Errorf("%s type = %v, want %v", tt.name, mf.GetType(), tt.typ)
		}
		if got := strings.Join(labelNames(mf), ","); got != tt.labels {
			t.Errorf("%s labels = %q, want %q", tt.name, got, tt.labels)
		}
	}

	// Values as scraped.
	values := []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"apiserver_request_total", reqLabels("GET", "", "v1", "pods", "", "resource", "", "200"), 1},
		{"apiserver_longrunning_requests", map[string]string{"verb": "WATCH", "group": "", "version": "v1", "resource": "pods", "subresource": "", "scope": "namespace", "component": "apiserver"}, 1},
		{"apiserver_current_inflight_requests", map[string]string{"request_kind": "mutating"}, 1},
		{"apiserver_current_inflight_requests", map[string]string{"request_kind": "readOnly"}, 0},
		{"apiserver_watch_events_total", map[string]string{"group": "", "version": "v1", "resource": "pods"}, 1},
		{"apiserver_storage_size_bytes", map[string]string{"storage_cluster_id": "etcd-0"}, 4096},
	}
	for _, v := range values {
		s := find(mfs, v.name, v.labels)
		if s == nil {
			t.Errorf("%s%v missing", v.name, v.labels)
			continue
		}
		got := s.GetCounter().GetValue() + s.GetGauge().GetValue()
		if got != v.value {
			t.Errorf("%s%v = %v, want %v", v.name, v.labels, got, v.value)
		}
	}
	h := find(mfs, "apiserver_request_duration_seconds", withoutCode(reqLabels("GET", "", "v1", "pods", "", "resource", "", "200")))
	if h == nil || h.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("apiserver_request_duration_seconds for the GET: %v, want one sample", h)
	}
}

// GatherAndCompare against kube's exposition text for one request.
func TestGatherAndCompareRequestTotal(t *testing.T) {
	m := New()
	m.ObserveRequest(Request{Verb: "PATCH", Group: "apps", Version: "v1", Resource: "deployments", Scope: "resource"}, 200, time.Millisecond)
	m.ObserveRequest(Request{Verb: "APPLY", Group: "apps", Version: "v1", Resource: "deployments", Scope: "resource", DryRun: true}, 201, time.Millisecond)
	const want = `
# HELP apiserver_request_total Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="PATCH",version="v1"} 1
apiserver_request_total{code="201",component="apiserver",dry_run="All",group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY",version="v1"} 1
`
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(want), "apiserver_request_total"); err != nil {
		t.Error(err)
	}
}

// --- isolation and concurrency ---

func TestTwoMetricsDoNotCollide(t *testing.T) {
	a, b := New(), New()
	r := Request{Verb: "LIST", Version: "v1", Resource: "configmaps", Scope: "namespace"}
	for range 3 {
		a.ObserveRequest(r, 200, time.Millisecond)
	}
	b.ObserveRequest(r, 200, time.Millisecond)
	doneA := a.LongRunning(Request{Verb: "WATCH", Version: "v1", Resource: "configmaps", Scope: "namespace"})
	defer doneA()
	a.SetStorageSource(func() []ResourceStats { return []ResourceStats{{Resource: "configmaps", Objects: 10}} }, nil)
	b.SetStorageSource(func() []ResourceStats { return []ResourceStats{{Resource: "configmaps", Objects: 20}} }, nil)

	labels := reqLabels("LIST", "", "v1", "configmaps", "", "namespace", "", "200")
	tests := []struct {
		name                  string
		m                     *Metrics
		requests, objects, lr float64
	}{
		{"a", a, 3, 10, 1},
		{"b", b, 1, 20, 0},
	}
	for _, tt := range tests {
		mfs := scrape(t, tt.m)
		if s := find(mfs, "apiserver_request_total", labels); s == nil || s.GetCounter().GetValue() != tt.requests {
			t.Errorf("%s: apiserver_request_total = %v, want %v", tt.name, s, tt.requests)
		}
		if s := find(mfs, "apiserver_storage_objects", map[string]string{"resource": "configmaps"}); s == nil || s.GetGauge().GetValue() != tt.objects {
			t.Errorf("%s: apiserver_storage_objects = %v, want %v", tt.name, s, tt.objects)
		}
		var lr float64
		if mf := mfs["apiserver_longrunning_requests"]; mf != nil {
			for _, s := range mf.GetMetric() {
				lr += s.GetGauge().GetValue()
			}
		}
		if lr != tt.lr {
			t.Errorf("%s: apiserver_longrunning_requests = %v, want %v", tt.name, lr, tt.lr)
		}
	}

	// Nothing went to the process-wide default registry.
	def, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range def {
		if strings.HasPrefix(mf.GetName(), "apiserver_") {
			t.Errorf("%s registered in the default registry", mf.GetName())
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	m := New()
	m.SetStorageSource(func() []ResourceStats { return []ResourceStats{{Resource: "pods", Objects: 1}} },
		func() (int64, error) { return 1, nil })
	const workers, perWorker = 4, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				r := Request{Verb: "GET", Version: "v1", Resource: fmt.Sprintf("r%d", i%5), Scope: "resource"}
				m.ObserveRequest(r, 200, time.Millisecond)
				done := m.LongRunning(Request{Verb: "WATCH", Version: "v1", Resource: "pods", Scope: "cluster"})
				doneInflight := m.Inflight(i%2 == 0)
				m.WatchEvent("", "v1", "pods", 100*w)
				doneInflight()
				done()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 5 {
			if _, err := m.reg.Gather(); err != nil {
				t.Errorf("gather: %v", err)
			}
		}
	}()
	wg.Wait()

	var total float64
	for _, s := range gather(t, m)["apiserver_request_total"].GetMetric() {
		total += s.GetCounter().GetValue()
	}
	if total != workers*perWorker {
		t.Errorf("requests counted = %v, want %v", total, workers*perWorker)
	}
	if got := testutil.ToFloat64(m.watchEvents.WithLabelValues("", "v1", "pods")); got != workers*perWorker {
		t.Errorf("watch events = %v, want %v", got, workers*perWorker)
	}
	lr := testutil.ToFloat64(m.longRunning.WithLabelValues("WATCH", "", "v1", "pods", "", "cluster", "apiserver"))
	mut := testutil.ToFloat64(m.inflight.WithLabelValues("mutating"))
	ro := testutil.ToFloat64(m.inflight.WithLabelValues("readOnly"))
	if lr != 0 || mut != 0 || ro != 0 {
		t.Errorf("gauges after all done: longrunning %v, mutating %v, readOnly %v; want 0", lr, mut, ro)
	}
}

// --- allocations and benchmarks ---

func TestHotPathsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	m := New()
	r := Request{Verb: "GET", Version: "v1", Resource: "pods", Scope: "resource"}
	w := Request{Verb: "WATCH", Version: "v1", Resource: "pods", Scope: "namespace"}
	tests := []struct {
		name string
		f    func()
	}{
		{"ObserveRequest", func() { m.ObserveRequest(r, 200, time.Millisecond) }},
		{"LongRunning", func() { m.LongRunning(w)() }},
		{"Inflight", func() { m.Inflight(true)() }},
		{"WatchEvent", func() { m.WatchEvent("", "v1", "pods", 2000) }},
	}
	for _, tt := range tests {
		tt.f() // first use creates the series
		if got := testing.AllocsPerRun(1000, tt.f); got != 0 {
			t.Errorf("%s allocates %v times per call, want 0", tt.name, got)
		}
	}
}

// benchRequests is a spread of label sets such as a busy server sees.
var benchRequests = []Request{
	{Verb: "GET", Version: "v1", Resource: "pods", Scope: "resource"},
	{Verb: "LIST", Version: "v1", Resource: "pods", Scope: "namespace"},
	{Verb: "CREATE", Group: "apps", Version: "v1", Resource: "deployments", Scope: "resource"},
	{Verb: "UPDATE", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "status", Scope: "resource"},
	{Verb: "PATCH", Group: "example.com", Version: "v1", Resource: "widgets", Scope: "resource"},
	{Verb: "DELETE", Version: "v1", Resource: "configmaps", Scope: "resource", DryRun: true},
	{Verb: "WATCH", Version: "v1", Resource: "configmaps", Scope: "cluster"},
	{Verb: "GET"},
}

func BenchmarkObserveRequest(b *testing.B) {
	m := New()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.ObserveRequest(benchRequests[i%len(benchRequests)], 200, 12*time.Millisecond)
		i++
	}
}

func BenchmarkObserveRequestParallel(b *testing.B) {
	m := New()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			m.ObserveRequest(benchRequests[i%len(benchRequests)], 200, 12*time.Millisecond)
			i++
		}
	})
}

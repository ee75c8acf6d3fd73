package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

func names(list map[string]any) []string {
	var out []string
	for _, it := range list["items"].([]any) {
		out = append(out, str(meta(it.(map[string]any))["name"]))
	}
	return out
}

func TestListPagingAndSelectors(t *testing.T) {
	c := newClient(t)
	c.createNamespace("a")
	c.createNamespace("b")
	for i := range 25 {
		ns := "a"
		if i%5 == 0 {
			ns = "b"
		}
		c.must(201, "POST", "/api/v1/namespaces/"+ns+"/configmaps", map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%02d", i), "labels": map[string]any{"parity": []string{"even", "odd"}[i%2]}},
		})
	}
	tests := []struct {
		name  string
		path  string
		want  int
		first string
	}{
		{"all namespaces", "/api/v1/configmaps", 25, "cm-01"},
		{"one namespace", "/api/v1/namespaces/a/configmaps", 20, "cm-01"},
		{"label equality", "/api/v1/configmaps?labelSelector=parity%3Deven", 13, "cm-02"},
		{"label set", "/api/v1/configmaps?labelSelector=parity+in+(odd)", 12, "cm-01"},
		{"label exists negated", "/api/v1/configmaps?labelSelector=!parity", 0, ""},
		{"field name", "/api/v1/configmaps?fieldSelector=metadata.name%3Dcm-07", 1, "cm-07"},
		{"field namespace", "/api/v1/configmaps?fieldSelector=metadata.namespace%21%3Da", 5, "cm-00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(c.must(200, "GET", tt.path, nil))
			if len(got) != tt.want {
				t.Fatalf("got %d items %v, want %d", len(got), got, tt.want)
			}
			if tt.want > 0 && got[0] != tt.first {
				t.Errorf("first item %s, want %s", got[0], tt.first)
			}
		})
	}
	t.Run("pages", func(t *testing.T) {
		for _, sel := range []string{"", "&labelSelector=parity%3Dodd"} {
			var all []string
			path := "/api/v1/configmaps?limit=7" + sel
			var rv string
			for pages := 0; ; pages++ {
				page := c.must(200, "GET", path, nil)
				m := meta(page)
				if rv == "" {
					rv = str(m["resourceVersion"])
				} else if str(m["resourceVersion"]) != rv {
					t.Fatalf("page resourceVersion %v, want %v", m["resourceVersion"], rv)
				}
				all = append(all, names(page)...)
				// Writes between pages do not show: every page reads the
				// first page's revision.
				c.must(201, "POST", "/api/v1/namespaces/a/configmaps", map[string]any{"metadata": map[string]any{"generateName": "late-"}})
				cont := str(m["continue"])
				if cont == "" {
					break
				}
				path = "/api/v1/configmaps?limit=7" + sel + "&continue=" + url.QueryEscape(cont)
			}
			want := 25
			if sel != "" {
				want = 12
			}
			if len(all) != want {
				t.Fatalf("selector %q: paged %d items, want %d: %v", sel, len(all), want, all)
			}
		}
	})
}

// TestListPagesAtOneRevision pages through a listing while the resource
// stays quiet (the pages come from the cache) and while an object of a
// later page changes (they come from storage): either way every page
// shows the listing's first revision.
func TestListPagesAtOneRevision(t *testing.T) {
	c := newClient(t)
	c.createNamespace("p")
	const path = "/api/v1/namespaces/p/configmaps"
	for i := range 10 {
		c.must(201, "POST", path, configMap("p", fmt.Sprintf("cm-%d", i), map[string]any{"v": "1"}))
	}
	for _, tt := range []struct {
		name    string
		between func(page int)
	}{
		{"quiet", func(int) {}},
		{"later object updated", func(page int) {
			c.must(200, "PATCH", path+"/cm-9", fmt.Sprintf(`{"data":{"v":"page-%d"}}`, page), "Content-Type", "application/merge-patch+json")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			var rv string
			next := path + "?limit=3"
			for page := 0; next != ""; page++ {
				list := c.must(200, "GET", next, nil)
				m := meta(list)
				if page == 0 {
					rv = str(m["resourceVersion"])
				} else if got := str(m["resourceVersion"]); got != rv {
					t.Fatalf("page %d: resourceVersion %s, want %s", page, got, rv)
				}
				for _, it := range list["items"].([]any) {
					o := it.(map[string]any)
					got = append(got, str(meta(o)["name"])+"="+str(o["data"].(map[string]any)["v"]))
				}
				tt.between(page)
				next = ""
				if cont := str(m["continue"]); cont != "" {
					next = path + "?limit=3&continue=" + url.QueryEscape(cont)
				}
			}
			// Nothing written after the first page may show.
			const want = "cm-0=1 cm-1=1 cm-2=1 cm-3=1 cm-4=1 cm-5=1 cm-6=1 cm-7=1 cm-8=1 cm-9=1"
			if g := strings.Join(got, " "); g != want {
				t.Errorf("paged\n got %s\nwant %s", g, want)
			}
		})
	}
	t.Run("resourceVersion=0 ignores the limit", func(t *testing.T) {
		// kube-apiserver's watch cache answers resourceVersion=0 whole.
		list := c.must(200, "GET", path+"?resourceVersion=0&limit=3", nil)
		if n := len(list["items"].([]any)); n != 10 {
			t.Errorf("got %d items, want all 10", n)
		}
		if cont := str(meta(list)["continue"]); cont != "" {
			t.Errorf("continue %q, want none", cont)
		}
	})
}

func TestListResourceVersions(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	const path = "/api/v1/namespaces/demo/configmaps"
	first := c.must(201, "POST", path, configMap("demo", "x", map[string]any{"v": "1"}))
	rv1 := str(meta(first)["resourceVersion"])
	c.must(200, "PATCH", path+"/x", `{"data":{"v":"2"}}`, "Content-Type", "application/merge-patch+json")

	old := c.must(200, "GET", path+"?resourceVersion="+rv1+"&resourceVersionMatch=Exact", nil)
	if got := old["items"].([]any)[0].(map[string]any)["data"].(map[string]any)["v"]; got != "1" {
		t.Errorf("Exact list at %s: got v=%v, want 1", rv1, got)
	}
	if got := str(meta(old)["resourceVersion"]); got != rv1 {
		t.Errorf("Exact list resourceVersion %s, want %s", got, rv1)
	}
	latest := c.must(200, "GET", path+"?resourceVersion=0", nil)
	if got := latest["items"].([]any)[0].(map[string]any)["data"].(map[string]any)["v"]; got != "2" {
		t.Errorf("list at any version: got v=%v, want 2", got)
	}
	r := c.do("GET", path+"?resourceVersion=999999&resourceVersionMatch=NotOlderThan", nil)
	if r.code != 504 {
		t.Errorf("list not older than a future revision: got %d, want 504", r.code)
	}
	rev, _ := strconv.ParseInt(str(meta(latest)["resourceVersion"]), 10, 64)
	if err := c.srv.Storage.Compact(t.Context(), rev); err != nil {
		t.Fatal(err)
	}
	r = c.do("GET", path+"?resourceVersion="+rv1+"&resourceVersionMatch=Exact", nil)
	if r.code != 410 || r.json(t)["reason"] != "Expired" {
		t.Errorf("Exact list at a compacted revision: got %d %s, want 410 Expired", r.code, r.body)
	}
}

// watchEvent is one decoded watch event.
type watchEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

// watchStream opens a watch and returns its events on a channel, closed
// when the stream ends.
func (c *client) watch(path string) (<-chan watchEvent, func()) {
	c.t.Helper()
	ctx, cancel := context.WithCancel(c.t.Context())
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		c.t.Fatalf("watch %s: got %d", path, resp.StatusCode)
	}
	ch := make(chan watchEvent, 1000)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var ev watchEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				return
			}
			ch <- ev
		}
	}()
	return ch, cancel
}

// next returns the next event or fails after a bounded wait.
func next(t *testing.T, ch <-chan watchEvent) watchEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
	}
	return watchEvent{}
}

func describe(ev watchEvent) string {
	m := meta(ev.Object)
	if ev.Type == "BOOKMARK" || ev.Type == "ERROR" {
		return ev.Type
	}
	return ev.Type + " " + str(m["name"])
}

func TestWatch(t *testing.T) {
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.BookmarkInterval = 50 * time.Millisecond
	}})
	c := clientFor(t, srv)
	c.createNamespace("demo")
	const path = "/api/v1/namespaces/demo/configmaps"
	a := c.must(201, "POST", path, map[string]any{"metadata": map[string]any{"name": "a", "labels": map[string]any{"k": "v"}}})
	rvA := str(meta(a)["resourceVersion"])

	t.Run("from a revision", func(t *testing.T) {
		ch, stop := c.watch(path + "?watch=1&resourceVersion=" + rvA)
		defer stop()
		c.must(201, "POST", path, configMap("demo", "b", nil))
		c.must(200, "DELETE", path+"/b", nil)
		var got []string
		for range 2 {
			got = append(got, describe(next(t, ch)))
		}
		if want := "ADDED b,DELETED b"; strings.Join(got, ",") != want {
			t.Errorf("got %v, want %s", got, want)
		}
	})
	t.Run("initial state without a revision", func(t *testing.T) {
		ch, stop := c.watch(path + "?watch=1")
		defer stop()
		if got := describe(next(t, ch)); got != "ADDED a" {
			t.Errorf("got %s, want ADDED a", got)
		}
	})
	t.Run("selector enter and leave", func(t *testing.T) {
		ch, stop := c.watch(path + "?watch=1&labelSelector=k%3Dv&resourceVersion=" + rvA)
		defer stop()
		c.must(200, "PATCH", path+"/a", `{"metadata":{"labels":{"k":"other"}}}`, "Content-Type", "application/merge-patch+json")
		c.must(200, "PATCH", path+"/a", `{"metadata":{"labels":{"k":"v"}}}`, "Content-Type", "application/merge-patch+json")
		left := next(t, ch)
		if describe(left) != "DELETED a" {
			t.Fatalf("got %s, want DELETED a on leaving the selector", describe(left))
		}
		if lbl := meta(left.Object)["labels"].(map[string]any)["k"]; lbl != "v" {
			t.Errorf("DELETED carries label k=%v, want the last matching state (v)", lbl)
		}
		if got := describe(next(t, ch)); got != "ADDED a" {
			t.Errorf("got %s, want ADDED a on entering the selector", got)
		}
	})
	t.Run("WatchList", func(t *testing.T) {
		ch, stop := c.watch(path + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
		defer stop()
		if got := describe(next(t, ch)); got != "ADDED a" {
			t.Fatalf("got %s, want ADDED a", got)
		}
		bm := next(t, ch)
		if bm.Type != "BOOKMARK" || str(meta(bm.Object)["annotations"].(map[string]any)["k8s.io/initial-events-end"]) != "true" {
			t.Fatalf("got %v, want the initial-events-end BOOKMARK", bm)
		}
		if bm.Object["kind"] != "ConfigMap" || str(meta(bm.Object)["resourceVersion"]) == "" {
			t.Errorf("bookmark object %v, want kind and resourceVersion", bm.Object)
		}
	})
	t.Run("bookmarks", func(t *testing.T) {
		ch, stop := c.watch(path + "?watch=1&allowWatchBookmarks=true&resourceVersion=" + rvA)
		defer stop()
		for {
			if ev := next(t, ch); ev.Type == "BOOKMARK" {
				return
			}
		}
	})
	t.Run("timeoutSeconds ends the stream", func(t *testing.T) {
		ch, stop := c.watch(path + "?watch=1&timeoutSeconds=1&resourceVersion=" + rvA)
		defer stop()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case _, ok := <-ch:
				if !ok {
					return
				}
			case <-deadline:
				t.Fatal("stream still open 10s after a 1s timeout")
			}
		}
	})
	t.Run("too old revision", func(t *testing.T) {
		for i := range 3 {
			c.must(201, "POST", path, configMap("demo", fmt.Sprintf("churn-%d", i), nil))
		}
		// Restart with a tiny event log: the revision falls out of it.
		small := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
			cfg.CacheLimits.MaxEvents, cfg.CacheLimits.MaxBytes, cfg.CacheLimits.WatchBuffer = 2, 1<<20, 16
		}})
		sc := clientFor(t, small)
		sc.createNamespace("demo")
		first := sc.must(201, "POST", path, configMap("demo", "x0", nil))
		for i := 1; i < 6; i++ {
			sc.must(201, "POST", path, configMap("demo", fmt.Sprintf("x%d", i), nil))
		}
		// A consistent list waits until the cache has applied every
		// create, so its event log has moved past the first.
		sc.must(200, "GET", path, nil)
		ch, stop := sc.watch(path + "?watch=1&resourceVersion=" + str(meta(first)["resourceVersion"]))
		defer stop()
		ev := next(t, ch)
		if ev.Type != "ERROR" || ev.Object["code"] != float64(410) || ev.Object["reason"] != "Expired" {
			t.Fatalf("got %v, want an ERROR event with a 410 Expired Status", ev)
		}
	})
	t.Run("too new revision", func(t *testing.T) {
		r := c.do("GET", path+"?watch=1&resourceVersion=99999999", nil)
		if r.code != 504 {
			t.Errorf("watch from a future revision: got %d, want 504", r.code)
		}
	})
}

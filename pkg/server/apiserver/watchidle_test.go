package apiserver_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestQuietWatchOutlivesWriteTimeout: a watch without bookmarks that sees
// nothing for longer than the write timeout still delivers the next
// event, over both protocols. The timeout bounds a write, not the time
// between writes. Watches are long-running: the request timeout, short
// here too, does not end them.
func TestQuietWatchOutlivesWriteTimeout(t *testing.T) {
	const writeTimeout = 200 * time.Millisecond
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.WatchWriteTimeout = writeTimeout
		cfg.RequestTimeout = writeTimeout
	}})
	c := clientFor(t, srv)
	c.createNamespace("quiet")
	const path = "/api/v1/namespaces/quiet/configmaps"
	for _, tc := range protocols {
		t.Run(tc.name, func(t *testing.T) {
			resp := watchOver(t, c, srv, path, tc.http2)
			events := make(chan string, 1)
			go func() {
				defer close(events)
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					var ev struct {
						Type   string
						Object map[string]any
					}
					if json.Unmarshal(sc.Bytes(), &ev) == nil {
						events <- ev.Type + " " + str(meta(ev.Object)["name"])
					}
				}
			}()
			time.Sleep(5 * writeTimeout)
			name := "after-quiet-" + map[bool]string{false: "h1", true: "h2"}[tc.http2]
			c.must(201, "POST", path, configMap("quiet", name, nil))
			select {
			case got, ok := <-events:
				if want := "ADDED " + name; !ok || got != want {
					t.Errorf("after a quiet %v: got %q (stream open: %v), want %q", 5*writeTimeout, got, ok, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no event within 10s")
			}
		})
	}
}

// TestStalledWatchIsCutOff: a watch whose client stops reading is ended
// once a write to it has been blocked for the write timeout, over both
// protocols, instead of holding its handler forever.
func TestStalledWatchIsCutOff(t *testing.T) {
	const writeTimeout = 300 * time.Millisecond
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.WatchWriteTimeout = writeTimeout
	}})
	c := clientFor(t, srv)
	c.createNamespace("stalled")
	const path = "/api/v1/namespaces/stalled/configmaps"
	big := strings.Repeat("x", 1_000_000)
	for _, tc := range protocols {
		t.Run(tc.name, func(t *testing.T) {
			resp := watchOver(t, c, srv, path, tc.http2)
			// 16 MB of events: more than the socket buffers and the
			// HTTP/2 flow-control window hold, so the server's writes
			// block while nothing reads.
			const events = 16
			for i := range events {
				c.must(201, "POST", path, configMap("stalled", fmt.Sprintf("%s-%d", map[bool]string{false: "h1", true: "h2"}[tc.http2], i), map[string]any{"big": big}))
			}
			time.Sleep(3 * writeTimeout)
			read := make(chan int, 1)
			go func() {
				sc := bufio.NewScanner(resp.Body)
				sc.Buffer(nil, 4<<20)
				n := 0
				for sc.Scan() {
					n++
				}
				read <- n
			}()
			select {
			case n := <-read:
				if n >= events {
					t.Errorf("read all %d events; want the stream cut off before the end", n)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the stalled stream was not ended")
			}
		})
	}
}

// watchOver opens a watch of path from its current revision over HTTP/2
// or HTTP/1.1; the test's end closes it.
func watchOver(t *testing.T, c *client, srv *apiservertest.Server, path string, http2 bool) *http.Response {
	t.Helper()
	list := c.must(200, "GET", path, nil)
	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+path+"?watch=1&resourceVersion="+str(meta(list)["resourceVersion"]), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := protoClient(t, srv, http2).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if want := map[bool]int{false: 1, true: 2}[http2]; resp.StatusCode != 200 || resp.ProtoMajor != want {
		t.Fatalf("watch: %d over %s, want 200 over HTTP/%d", resp.StatusCode, resp.Proto, want)
	}
	return resp
}

// protocols are the two a watch is served over.
var protocols = []struct {
	name  string
	http2 bool
}{
	{"HTTP/1.1", false},
	{"HTTP/2", true},
}

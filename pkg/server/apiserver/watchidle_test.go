package apiserver_test

import (
	"bufio"
	"encoding/json"
	"net/http"
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
	for _, tc := range []struct {
		name  string
		http2 bool
	}{
		{"HTTP/1.1", false},
		{"HTTP/2", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := protoClient(t, srv, tc.http2)
			list := c.must(200, "GET", path, nil)
			req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+path+"?watch=1&resourceVersion="+str(meta(list)["resourceVersion"]), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 || resp.ProtoMajor != map[bool]int{false: 1, true: 2}[tc.http2] {
				t.Fatalf("watch: %d over %s, want 200 over %s", resp.StatusCode, resp.Proto, tc.name)
			}
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

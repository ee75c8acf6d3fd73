package apiserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

func TestTimeoutParameter(t *testing.T) {
	c := newClient(t)
	const invalid = `invalid timeout specified in the request URL - time: `
	for _, tc := range []struct {
		path     string
		wantCode int
		wantMsg  string // for a Status answer
	}{
		{"/api/v1/namespaces?timeout=invalid", 400, invalid + `invalid duration "invalid"`},
		{"/api/v1/namespaces/default?timeout=5", 400, invalid + `missing unit in duration "5"`},
		{"/version?timeout=1x", 400, invalid + `unknown unit "x" in duration "1x"`},
		// Probes need no credentials, but are bounded all the same.
		{"/healthz?timeout=bad", 400, invalid + `invalid duration "bad"`},
		{"/api/v1/namespaces?timeout=30s", 200, ""},
		{"/api/v1/namespaces?timeout=0s", 200, ""},
		{"/api/v1/namespaces?timeout=-1s", 200, ""},
		{"/api/v1/namespaces?timeout=2h", 200, ""},
		// Watches are long-running: kube-apiserver ignores timeout there.
		{"/api/v1/namespaces?watch=1&timeoutSeconds=1&timeout=invalid", 200, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := c.do("GET", tc.path, nil)
			if r.code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", r.code, tc.wantCode, r.body)
			}
			if tc.wantMsg == "" {
				return
			}
			st := r.json(t)
			if st["kind"] != "Status" || st["reason"] != "BadRequest" || st["message"] != tc.wantMsg {
				t.Errorf("got %s, want a BadRequest Status with message %q", r.body, tc.wantMsg)
			}
		})
	}
}

// trickle is a request body that sends one byte every interval until the
// test ends, as a client holding a request open would.
func trickle(ctx context.Context, interval time.Duration) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer pw.Close()
		if _, err := pw.Write([]byte(`{"metadata":{"name":"slow"},"data":{"k":"`)); err != nil {
			return
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := pw.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	return pr
}

// TestSlowRequestTimesOut: a request still reading a trickling body at its
// deadline is answered with kube-apiserver's 504 Timeout Status, whether
// the deadline is the server's or a shorter ?timeout=.
func TestSlowRequestTimesOut(t *testing.T) {
	short := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.RequestTimeout = 300 * time.Millisecond
	}})
	long := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.RequestTimeout = time.Hour
	}})
	for _, tc := range []struct {
		name  string
		srv   *apiservertest.Server
		query string
	}{
		{"server timeout", short, ""},
		{"timeout parameter", long, "?timeout=300ms"},
		{"timeout parameter capped by the server's", short, "?timeout=1h"},
	} {
		for _, h2 := range []bool{false, true} {
			t.Run(tc.name+" "+protoName(h2), func(t *testing.T) {
				hc := protoClient(t, tc.srv, h2)
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				req, err := http.NewRequestWithContext(ctx, "POST", tc.srv.URL+"/api/v1/namespaces/default/configmaps"+tc.query, trickle(ctx, 50*time.Millisecond))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				start := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatalf("after %v: %v", time.Since(start), err)
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("answered after %v, want about 300ms", took)
				}
				var st map[string]any
				_ = json.Unmarshal(body, &st)
				if resp.StatusCode != 504 || st["reason"] != "Timeout" || st["code"] != 504.0 ||
					st["message"] != "Timeout: request did not complete within the allotted timeout" {
					t.Errorf("got %d %s, want 504 and a Timeout Status", resp.StatusCode, body)
				}
			})
		}
	}
}

// TestIdleConnectionClosed: a keep-alive connection left idle past the
// idle timeout is closed by the server, so the next request dials anew.
func TestIdleConnectionClosed(t *testing.T) {
	const idle = 200 * time.Millisecond
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.IdleTimeout = idle
	}})
	for _, tc := range []struct {
		wait       time.Duration
		wantReused bool
	}{
		{0, true},
		{5 * idle, false},
	} {
		for _, h2 := range []bool{false, true} {
			t.Run(protoName(h2)+" after "+tc.wait.String(), func(t *testing.T) {
				hc := protoClient(t, srv, h2)
				get := func() bool {
					var reused bool
					ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{
						GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
					})
					req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/version", nil)
					resp, err := hc.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					return reused
				}
				get()
				time.Sleep(tc.wait)
				if got := get(); got != tc.wantReused {
					t.Errorf("second request reused the connection: %v, want %v", got, tc.wantReused)
				}
			})
		}
	}
}

// TestAfterTimeout: a request that timed out does not spoil its
// connection: the client's next request is answered normally.
func TestAfterTimeout(t *testing.T) {
	srv := apiservertest.Start(t)
	for _, h2 := range []bool{false, true} {
		t.Run(protoName(h2), func(t *testing.T) {
			hc := protoClient(t, srv, h2)
			name := "after-timeout-" + map[bool]string{false: "h1", true: "h2"}[h2]
			body := mustJSON(configMap("default", name, nil))
			// A timed-out create may still complete after its 504, as in
			// kube-apiserver: it gets a name of its own.
			late := mustJSON(configMap("default", name+"-late", nil))
			for i, tc := range []struct {
				method, path string
				body         string
				wantCode     int
			}{
				{"GET", "/api/v1/namespaces?timeout=1ns", "", 504},
				{"GET", "/api/v1/namespaces", "", 200},
				{"POST", "/api/v1/namespaces/default/configmaps?timeout=1ns", late, 504},
				{"GET", "/api/v1/namespaces/default", "", 200},
				{"POST", "/api/v1/namespaces/default/configmaps?timeout=10s", body, 201},
				{"GET", "/api/v1/namespaces/default/configmaps/" + name, "", 200},
			} {
				req, err := http.NewRequestWithContext(t.Context(), tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.wantCode {
					t.Errorf("request %d, %s %s: %d %s, want %d", i, tc.method, tc.path, resp.StatusCode, body, tc.wantCode)
				}
			}
		})
	}
}

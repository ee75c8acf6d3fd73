package apiserver_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// logBuffer collects a server's log for a test.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// records returns the JSON log records with message msg.
func (l *logBuffer) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(l.String()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, sc.Bytes())
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

func TestAccessLog(t *testing.T) {
	logs := &logBuffer{}
	srv := apiservertest.StartWith(t, apiservertest.Options{
		Logger:    slog.New(slog.NewJSONHandler(logs, nil)),
		Configure: func(cfg *apiserver.Config) { cfg.AccessLog = true },
	})
	c := clientFor(t, srv)
	const wrongToken = "not-the-admin-token-0123456789"
	for _, tc := range []struct {
		method, path string
		token        string // "" sends the admin token
		body         any
		wantCode     int
		wantUser     string
		wantQuery    string
	}{
		{"GET", "/api/v1/namespaces", "", nil, 200, "setpoint-admin", ""},
		{"GET", "/api/v1/namespaces?limit=1", wrongToken, nil, 401, "system:anonymous", "limit=1"},
		{"POST", "/api/v1/namespaces/default/configmaps", "", configMap("default", "logged", nil), 201, "setpoint-admin", ""},
		{"GET", "/api/v1/namespaces/default/configmaps/missing", "", nil, 404, "setpoint-admin", ""},
		{"GET", "/readyz?verbose", wrongToken, nil, 200, "system:anonymous", "verbose"},
	} {
		before := len(logs.records(t, "request"))
		var headers []string
		switch tc.token {
		case "":
		default:
			headers = []string{"Authorization", "Bearer " + tc.token}
		}
		if r := c.do(tc.method, tc.path, tc.body, headers...); r.code != tc.wantCode {
			t.Fatalf("%s %s: %d, want %d", tc.method, tc.path, r.code, tc.wantCode)
		}
		recs := logs.records(t, "request")
		if len(recs) != before+1 {
			t.Fatalf("%s %s: %d access log lines, want 1", tc.method, tc.path, len(recs)-before)
		}
		rec := recs[before]
		path, _, _ := strings.Cut(tc.path, "?")
		want := map[string]any{"level": "INFO", "method": tc.method, "path": path, "user": tc.wantUser, "code": float64(tc.wantCode)}
		if tc.wantQuery != "" {
			want["query"] = tc.wantQuery
		}
		for k, v := range want {
			if rec[k] != v {
				t.Errorf("%s %s: %s = %v, want %v", tc.method, tc.path, k, rec[k], v)
			}
		}
		if _, ok := rec["query"]; ok && tc.wantQuery == "" {
			t.Errorf("%s %s: query %v logged for a request without one", tc.method, tc.path, rec["query"])
		}
		if lat, ok := rec["latency"].(float64); !ok || lat <= 0 {
			t.Errorf("%s %s: latency %v, want a positive duration", tc.method, tc.path, rec["latency"])
		}
	}
	for _, secret := range []string{srv.Config.BearerToken, wrongToken, "Bearer", "Authorization"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log contains %q:\n%s", secret, logs.String())
		}
	}
}

// TestServerErrorsLogged: the HTTP server's own errors reach a default
// (Info) log; a failed TLS handshake used to be logged at Debug.
func TestServerErrorsLogged(t *testing.T) {
	logs := &logBuffer{}
	srv := apiservertest.StartWith(t, apiservertest.Options{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	// A client that does not trust the server's CA abandons the handshake.
	_, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{}}}).Get(srv.URL + "/readyz")
	if err == nil {
		t.Fatal("a client without the CA connected")
	}
	for range 100 {
		if len(logs.records(t, "TLS handshake failed")) > 0 {
			break
		}
		waitABit()
	}
	recs := logs.records(t, "TLS handshake failed")
	if len(recs) != 1 || recs[0]["level"] != "INFO" || !strings.Contains(recs[0]["err"].(string), "TLS handshake error") {
		t.Errorf("TLS handshake failure logged as %v, want one INFO record; log:\n%s", recs, logs.String())
	}
}

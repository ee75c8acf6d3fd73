package filters

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestServerErrorLogLevels(t *testing.T) {
	for _, tc := range []struct {
		line, wantLevel, wantMsg string
	}{
		{"http: TLS handshake error from 127.0.0.1:5555: EOF\n", "INFO", "TLS handshake failed"},
		{"http: panic serving 127.0.0.1:5555: boom\ngoroutine 1 [running]:\n", "ERROR", "request handler panicked"},
		{"http: Accept error: too many open files; retrying in 5ms\n", "WARN", "HTTP server error"},
		{"http2: server: error reading preface from client 127.0.0.1:5555: EOF\n", "WARN", "HTTP server error"},
	} {
		var buf bytes.Buffer
		ServerErrorLog(slog.New(slog.NewJSONHandler(&buf, nil))).Print(tc.line)
		var rec map[string]any
		if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
			t.Fatalf("%q: %v: %s", tc.line, err, buf.Bytes())
		}
		if rec["level"] != tc.wantLevel || rec["msg"] != tc.wantMsg {
			t.Errorf("%q logged as %v %q, want %s %q", tc.line, rec["level"], rec["msg"], tc.wantLevel, tc.wantMsg)
		}
	}
}

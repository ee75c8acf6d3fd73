package filters

import (
	"log/slog"
	"net/http"
	"time"
)

// WithAccessLog logs one line per request when it ends (for a watch,
// when the stream closes): method, path, query, user, code and latency.
// Headers are never logged, so neither are bearer tokens. user names
// whoever a request's credentials belong to; the log comes before
// authentication, so it asks itself.
func WithAccessLog(next http.Handler, log *slog.Logger, user func(*http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := NewStatusRecorder(w)
		panicked := true
		defer func() {
			code := rw.code
			if panicked && !rw.written {
				code = http.StatusInternalServerError
			}
			attrs := []any{"method", r.Method, "path", r.URL.Path}
			if r.URL.RawQuery != "" {
				attrs = append(attrs, "query", r.URL.RawQuery)
			}
			attrs = append(attrs, "user", user(r), "code", code, "latency", time.Since(start), "remote", r.RemoteAddr)
			log.Info("request", attrs...)
		}()
		next.ServeHTTP(rw, r)
		panicked = false
	})
}

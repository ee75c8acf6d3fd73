package apiserver

import (
	"net/http"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// withAccessLog logs one line per request when it ends (for a watch,
// when the stream closes): method, path, query, user, code and latency.
// Headers are never logged, so neither are bearer tokens.
func (s *Server) withAccessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
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
			attrs = append(attrs, "user", s.userOf(r), "code", code, "latency", time.Since(start), "remote", r.RemoteAddr)
			s.log.Info("request", attrs...)
		}()
		next.ServeHTTP(rw, r)
		panicked = false
	})
}

// userOf names the user whose credentials a request carries; requests
// without valid ones are anonymous.
func (s *Server) userOf(r *http.Request) string {
	if id, ok := s.cfg.Authenticator.(Identifier); ok {
		if info, ok := id.Identify(r); ok {
			return info.Username
		}
	}
	return user.Anonymous.Username
}

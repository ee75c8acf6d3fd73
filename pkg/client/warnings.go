package client

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"
)

// maxWarnings bounds the memory of warnings already logged; past it the
// memory starts over, so a long-running controller repeats a warning
// now and then instead of growing without bound.
const maxWarnings = 1024

// warningLog logs each distinct Warning header (RFC 9111 §5.5, as
// kube-apiserver sends deprecations and unknown fields) once.
type warningLog struct {
	log  *slog.Logger
	mu   sync.Mutex
	seen map[string]struct{}
}

func newWarningLog(log *slog.Logger) *warningLog {
	return &warningLog{log: log, seen: map[string]struct{}{}}
}

func (w *warningLog) handle(h http.Header) {
	values := h.Values("Warning")
	if len(values) == 0 {
		return
	}
	for _, v := range values {
		for _, msg := range parseWarnings(v) {
			w.mu.Lock()
			_, dup := w.seen[msg]
			if !dup {
				if len(w.seen) >= maxWarnings {
					clear(w.seen)
				}
				w.seen[msg] = struct{}{}
			}
			w.mu.Unlock()
			if !dup {
				w.log.Warn("API server warning", "warning", msg)
			}
		}
	}
}

// parseWarnings reads one Warning header value: comma-separated
// `code agent "text" ["date"]` entries. Only code 299 (miscellaneous
// persistent warning) is what Kubernetes sends; others are ignored. A
// value that does not parse is returned whole rather than dropped.
func parseWarnings(v string) []string {
	var out []string
	rest := strings.TrimSpace(v)
	for rest != "" {
		code, after, ok := strings.Cut(rest, " ")
		if !ok || len(code) != 3 {
			return append(out, strings.TrimSpace(v))
		}
		_, after, ok = strings.Cut(strings.TrimLeft(after, " "), " ") // agent
		if !ok {
			return append(out, strings.TrimSpace(v))
		}
		text, tail, ok := quoted(strings.TrimLeft(after, " "))
		if !ok {
			return append(out, strings.TrimSpace(v))
		}
		if code == "299" && text != "" {
			out = append(out, text)
		}
		tail = strings.TrimLeft(tail, " ")
		if strings.HasPrefix(tail, `"`) { // warn-date
			if _, tail, ok = quoted(tail); !ok {
				return out
			}
		}
		tail = strings.TrimLeft(tail, " ")
		if tail != "" && tail[0] != ',' {
			return out
		}
		rest = strings.TrimLeft(strings.TrimPrefix(tail, ","), " ")
	}
	return out
}

// quoted reads an HTTP quoted-string at the start of s.
func quoted(s string) (text, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", s, false
}

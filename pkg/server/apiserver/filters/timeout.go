package filters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultRequestTimeout is kube-apiserver's --request-timeout default.
const DefaultRequestTimeout = time.Minute

// errInvalidTimeout is the start of the 400 answered to a malformed
// timeout parameter; kube-apiserver's message.
const errInvalidTimeout = "invalid timeout specified in the request URL"

// Timeout configures WithRequestTimeout.
type Timeout struct {
	// Default bounds a request that asks for no shorter timeout.
	Default time.Duration
	// Log reports a handler that panics after its request timed out.
	Log *slog.Logger
	// WriteStatus answers a request with an API Status, as the server
	// encodes one.
	WriteStatus func(http.ResponseWriter, *apierror.StatusError)
}

// WithRequestTimeout bounds every request that is not long-running (a
// watch) by the server's request timeout, or by the shorter ?timeout=
// the client asked for. A request still running at its deadline gets a
// 504 Timeout Status; one that already started its response has its
// connection (HTTP/1.1) or stream (HTTP/2) cut. Reading the body is
// bounded by the same deadline, so a client trickling a body cannot hold
// a request open.
func WithRequestTimeout(next http.Handler, cfg Timeout) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isLongRunning(r) {
			next.ServeHTTP(w, r)
			return
		}
		timeout, err := requestTimeout(r.URL.Query(), cfg.Default)
		if err != nil {
			cfg.WriteStatus(w, apierror.BadRequest("%s - %v", errInvalidTimeout, err))
			return
		}
		deadline := time.Now().Add(timeout)
		ctx, cancel := context.WithDeadline(r.Context(), deadline)
		defer cancel()
		if r.Body != nil && r.Body != http.NoBody {
			// Only with a body to bound: on HTTP/1.1 the deadline is the
			// connection's, and the server's own read of it in the
			// background would end the connection's context with it.
			// Writers that are no connection (tests) do not support it.
			_ = http.NewResponseController(w).SetReadDeadline(deadline)
		}
		serveWithin(ctx, deadline, w, r, next, cfg.Log)
	})
}

// snapshotPath is apiserver.SnapshotPath, which filters cannot import.
const snapshotPath = "/snapshot"

// isLongRunning says whether a request is exempt from the request
// timeout: watches, which the server's request parser recognises the same
// way, and store snapshots, whose size has no bound.
func isLongRunning(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	if r.URL.Path == snapshotPath {
		return true
	}
	w := r.URL.Query().Get("watch")
	return w != "" && w != "false" && w != "0"
}

// requestTimeout is the timeout for a request: the default, or a shorter
// positive one from the timeout parameter (a Go duration such as "30s").
// As in kube-apiserver a longer one is capped at the default.
func requestTimeout(q url.Values, def time.Duration) (time.Duration, error) {
	v := q.Get("timeout")
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, err
	}
	if d > 0 && d < def {
		return d, nil
	}
	return def, nil
}

// serveWithin runs next in its own goroutine so the request can be
// answered at its deadline even if next is blocked. A context that ends
// earlier (the client left, the server is stopping) is next's to handle.
func serveWithin(ctx context.Context, deadline time.Time, w http.ResponseWriter, r *http.Request, next http.Handler, log *slog.Logger) {
	tw := &timeoutWriter{w: w, deadline: deadline, header: w.Header().Clone(), expired: make(chan struct{}), http1: r.ProtoMajor == 1}
	r = r.WithContext(ctx)
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &timeoutBody{ReadCloser: r.Body, tw: tw}
	}
	done := make(chan any, 1)
	go func() {
		growStack()
		defer func() {
			p := recover()
			if p != nil && p != http.ErrAbortHandler {
				// Keep the handler's stack: the panic is raised again on
				// the server's goroutine, which only knows its own.
				buf := make([]byte, 64<<10)
				p = fmt.Sprintf("%v\n%s", p, buf[:runtime.Stack(buf, false)])
			}
			done <- p
		}()
		next.ServeHTTP(tw, r)
	}()
	select {
	case p := <-done:
		if p != nil {
			panic(p)
		}
		// The handler may have given up on the expired context without
		// answering (its writes were refused).
		tw.expire(false)
	case <-ctx.Done():
		if !tw.pastDeadline() {
			// The client left, or the server is shutting down: the
			// handler sees its context end and answers as it can.
			if p := <-done; p != nil {
				panic(p)
			}
			return
		}
		tw.expire(true)
		late := func(p any) {
			if p != nil && p != http.ErrAbortHandler {
				log.Warn("handler panicked after its request timed out", "method", r.Method, "path", r.URL.Path, "panic", p)
			}
		}
		if tw.http1 && r.Body != nil && r.Body != http.NoBody {
			// After the handler returns, the server reads what is left of
			// a small body so the connection can be reused, and if a read
			// of the body is still under way it clears the read deadline
			// first. Letting that read end here (it has reached the
			// deadline) keeps the deadline on the server's own read, so a
			// client trickling its body cannot hold the connection.
			select {
			case p := <-done:
				late(p)
				return
			case <-time.After(time.Second):
			}
		}
		go func() { late(<-done) }()
	}
}

// timeoutWriter passes a handler's response through until the request's
// deadline; from then on its writes fail with http.ErrHandlerTimeout.
type timeoutWriter struct {
	w        http.ResponseWriter
	deadline time.Time
	// http1 marks an HTTP/1.x request, whose connection is closed after
	// a timeout.
	http1 bool

	mu sync.Mutex
	// header is the handler's own copy, so it can keep setting headers
	// while a timeout answer is written.
	header      http.Header
	wroteHeader bool
	timedOut    bool
	expired     chan struct{} // closed once timedOut is set
}

func (tw *timeoutWriter) Header() http.Header {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return http.Header{}
	}
	return tw.header
}

// refused says whether the handler may no longer write; called with mu
// held. Past the deadline an unstarted response belongs to the timeout.
func (tw *timeoutWriter) refused() bool {
	return tw.timedOut || !tw.wroteHeader && tw.pastDeadline()
}

// pastDeadline tells a timeout from the other ends of a request's
// context: the client leaving and the server shutting down. It asks the
// clock, not the context: on HTTP/1.1 a body read that hits the deadline
// cancels the request's context before the context's own timer fires.
func (tw *timeoutWriter) pastDeadline() bool {
	return !time.Now().Before(tw.deadline)
}

func (tw *timeoutWriter) WriteHeader(code int) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.refused() || tw.wroteHeader {
		return
	}
	tw.start(code)
}

// start sends the handler's headers and code; called with mu held.
func (tw *timeoutWriter) start(code int) {
	dst := tw.w.Header()
	for k, v := range tw.header {
		dst[k] = v
	}
	tw.wroteHeader = true
	tw.w.WriteHeader(code)
}

func (tw *timeoutWriter) Write(b []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.refused() {
		return 0, http.ErrHandlerTimeout
	}
	if !tw.wroteHeader {
		tw.start(http.StatusOK)
	}
	return tw.w.Write(b)
}

func (tw *timeoutWriter) Flush() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut {
		return
	}
	if f, ok := tw.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (tw *timeoutWriter) Unwrap() http.ResponseWriter { return tw.w }

// expire answers a request past its deadline with kube-apiserver's
// 504 Timeout Status, unless the handler answered in time. If the handler
// is still running (running) and had started its response, the response
// can only be cut off: panicking with http.ErrAbortHandler makes the
// server close the connection or reset the stream, without logging.
func (tw *timeoutWriter) expire(running bool) {
	tw.mu.Lock()
	if !tw.pastDeadline() || tw.timedOut || tw.wroteHeader && !running {
		tw.mu.Unlock()
		return
	}
	tw.timedOut = true
	close(tw.expired)
	if tw.wroteHeader {
		tw.mu.Unlock()
		panic(http.ErrAbortHandler)
	}
	defer tw.mu.Unlock()
	st := apierror.New(http.StatusGatewayTimeout, metav1.StatusReasonTimeout,
		"Timeout: request did not complete within the allotted timeout")
	st.Status.Details = &metav1.StatusDetails{}
	// Like kube-apiserver, the Status goes out as JSON without a declared
	// content type. An HTTP/1.1 connection is not reused: a read of it
	// may have hit the request's deadline, which ends the connection's
	// context and so every later request on it. (On HTTP/2 the header
	// would close the whole connection, every stream on it.)
	if tw.http1 {
		tw.w.Header().Set("Connection", "close")
	}
	tw.w.WriteHeader(http.StatusGatewayTimeout)
	_ = json.NewEncoder(tw.w).Encode(&st.Status)
}

// timeoutBody is a request body whose reads end with the request: a read
// that reached the deadline waits for the timeout answer to be written,
// so the handler cannot answer first with a read error of its own.
type timeoutBody struct {
	io.ReadCloser
	tw *timeoutWriter
}

func (b *timeoutBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		select {
		case <-b.tw.expired:
		case <-time.After(time.Second):
		}
		return n, http.ErrHandlerTimeout
	}
	return n, err
}

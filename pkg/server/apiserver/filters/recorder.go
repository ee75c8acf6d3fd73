package filters

import "net/http"

// StatusRecorder remembers the response code for metrics and the access
// log; Flush and Unwrap keep watches streaming and
// http.ResponseController working through it.
type StatusRecorder struct {
	http.ResponseWriter
	code    int
	written bool
}

// NewStatusRecorder records what is written to w; a response that sets no
// code is a 200.
func NewStatusRecorder(w http.ResponseWriter) *StatusRecorder {
	return &StatusRecorder{ResponseWriter: w, code: http.StatusOK}
}

// Code is the response's status code.
func (w *StatusRecorder) Code() int { return w.code }

func (w *StatusRecorder) WriteHeader(code int) {
	if !w.written {
		w.code, w.written = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *StatusRecorder) Write(b []byte) (int, error) {
	w.written = true
	return w.ResponseWriter.Write(b)
}

func (w *StatusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *StatusRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

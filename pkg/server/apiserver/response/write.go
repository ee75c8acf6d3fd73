package response

import (
	"bufio"
	"bytes"
	"net/http"
	"strconv"
)

// bufferedWriter batches small writes of a streamed response.
type bufferedWriter struct {
	w   *bufio.Writer
	err error
}

func newBufferedWriter(w http.ResponseWriter) *bufferedWriter {
	return &bufferedWriter{w: bufio.NewWriterSize(w, 32<<10)}
}

func (b *bufferedWriter) Write(p []byte) {
	if b.err == nil {
		_, b.err = b.w.Write(p)
	}
}

func (b *bufferedWriter) WriteString(s string) {
	if b.err == nil {
		_, b.err = b.w.WriteString(s)
	}
}

func (b *bufferedWriter) WriteQuoted(s string) {
	b.WriteString(strconv.Quote(s))
}

// Flush ends the response; a failed write means the client left, which
// is not the server's error to report.
func (b *bufferedWriter) Flush() error {
	if b.err == nil {
		b.err = b.w.Flush()
	}
	return nil
}

// bufferResponse collects a response in memory.
type bufferResponse struct {
	header http.Header
	buf    *bytes.Buffer
	code   int
}

func (b *bufferResponse) Header() http.Header         { return b.header }
func (b *bufferResponse) Write(p []byte) (int, error) { return b.buf.Write(p) }
func (b *bufferResponse) WriteHeader(code int)        { b.code = code }

// jsonOnly is r asking for plain JSON.
func jsonOnly(r *http.Request) *http.Request {
	r2 := r.Clone(r.Context())
	r2.Header.Set("Accept", "application/json")
	return r2
}

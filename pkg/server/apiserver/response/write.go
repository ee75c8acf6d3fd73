package response

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// ServedVersion returns obj, served or stored JSON, as the requested
// version of its resource (registry.Resource.FromStorage). Objects
// written by this server usually start with apiVersion (map keys marshal
// sorted), which makes the common case a prefix check.
func ServedVersion(res *registry.Resource, obj []byte) ([]byte, error) {
	want := res.APIVersion()
	if bytes.HasPrefix(obj, []byte(`{"apiVersion":"`+want+`"`)) {
		return obj, nil
	}
	var m map[string]any
	if err := unmarshalJSON(obj, &m); err != nil {
		return nil, apierror.Internal(err)
	}
	if m["apiVersion"] == want {
		return obj, nil
	}
	m, err := res.FromStorage(m)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return json.Marshal(m)
}

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

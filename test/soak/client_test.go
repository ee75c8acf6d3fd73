package soak_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// client speaks to the server with plain net/http, and opens raw
// connections for the abuse that a well-behaved client never does.
type client struct {
	addr  string // host:port
	base  string // https://host:port
	token string
	tls   *tls.Config
	hc    *http.Client
}

func newClient(t *testing.T, kubeconfig string) *client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cfg.TLSClientConfig.CAData) {
		t.Fatal("kubeconfig has no CA")
	}
	tc := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	c := &client{
		base: cfg.Host, addr: strings.TrimPrefix(cfg.Host, "https://"),
		token: cfg.BearerToken, tls: tc,
		hc: &http.Client{Timeout: time.Minute, Transport: &http.Transport{
			TLSClientConfig: tc.Clone(), ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 16,
		}},
	}
	t.Cleanup(c.hc.CloseIdleConnections)
	return c
}

// do sends one request and returns the code and body.
func (c *client) do(t *testing.T, method, path, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, c.base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return resp.StatusCode, b
}

// ok sends a request that must succeed.
func (c *client) ok(t *testing.T, method, path, contentType string, body []byte) []byte {
	t.Helper()
	code, b := c.do(t, method, path, contentType, body)
	if code >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, code, b)
	}
	return b
}

// refused sends a request that must be refused with one of codes, as a
// Status of that code.
func (c *client) refused(t *testing.T, method, path, contentType string, body []byte, codes ...int) metav1.Status {
	t.Helper()
	code, b := c.do(t, method, path, contentType, body)
	var st metav1.Status
	if err := json.Unmarshal(b, &st); err != nil || st.Kind != "Status" {
		t.Fatalf("%s %s: %d with a body that is no Status: %.300s", method, path, code, b)
	}
	for _, want := range codes {
		if code == want && int(st.Code) == want {
			return st
		}
	}
	t.Fatalf("%s %s: got %d (Status code %d: %s), want one of %v", method, path, code, st.Code, st.Message, codes)
	return st
}

// tooLarge sends a write that must be refused for its size: 413 for a
// body or patch over the request limits, 422 for data over a kind's
// limit, or, for an object over the storage limit, the 500 kube-apiserver
// passes through from etcd.
func (c *client) tooLarge(t *testing.T, method, path, contentType string, body []byte) {
	t.Helper()
	st := c.refused(t, method, path, contentType, body,
		http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity, http.StatusInternalServerError)
	if st.Code == http.StatusInternalServerError && !strings.Contains(st.Message, "request is too large") {
		t.Fatalf("%s %s: 500 %q, want a refusal for size", method, path, st.Message)
	}
}

// metric reads one unlabelled sample from /metrics.
func (c *client) metric(t *testing.T, name string) float64 {
	t.Helper()
	body := c.ok(t, http.MethodGet, "/metrics", "", nil)
	for line := range strings.SplitSeq(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("metric %s: %v", name, err)
			}
			return f
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// dial opens a TLS connection that speaks HTTP/1.1, so each raw request
// holds a connection (and a descriptor) of its own.
func (c *client) dial(t *testing.T) *tls.Conn {
	t.Helper()
	cfg := c.tls.Clone()
	cfg.NextProtos = []string{"http/1.1"}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", c.addr, cfg)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return conn
}

// rawRequest is an HTTP/1.1 request head; body length is declared but
// the body is the caller's to send.
func (c *client) rawRequest(method, path string, auth bool, contentLength int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, path, c.addr)
	if auth {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", c.token)
	}
	if contentLength > 0 {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", contentLength)
	}
	b.WriteString("\r\n")
	return b.String()
}

// closedWithin reports whether the server closes conn (or answers on it
// and then closes it) within d, reading whatever it sends.
func closedWithin(conn net.Conn, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, bufio.NewReader(conn))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

package apiserver_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// protoClient is an HTTPS client for srv that speaks only the given
// protocol (HTTP/1.1 or HTTP/2), with the admin token.
func protoClient(t testing.TB, srv *apiservertest.Server, http2 bool) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(srv.Credentials.CAPEM) {
		t.Fatal("no CA certificate")
	}
	var protos http.Protocols
	if http2 {
		protos.SetHTTP2(true)
	} else {
		protos.SetHTTP1(true)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, Protocols: &protos}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tokenTransport{tr, srv.Config.BearerToken}}
}

type tokenTransport struct {
	base  http.RoundTripper
	token string
}

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

func protoName(http2 bool) string {
	if http2 {
		return "HTTP/2"
	}
	return "HTTP/1.1"
}

func waitABit() { time.Sleep(20 * time.Millisecond) }

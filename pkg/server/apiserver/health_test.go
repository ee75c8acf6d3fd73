package apiserver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// failingStore is a store whose reads fail while down is set.
type failingStore struct {
	storage.Interface
	down atomic.Bool
}

var errStoreDown = errors.New("store unreachable")

func (s *failingStore) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	if s.down.Load() {
		return storage.KeyValue{}, errStoreDown
	}
	return s.Interface.Get(ctx, key)
}

func TestHealthEndpoints(t *testing.T) {
	store := &failingStore{Interface: memory.New()}
	t.Cleanup(func() { _ = store.Close() })
	srv := apiservertest.StartWith(t, apiservertest.Options{Storage: store})
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(srv.Credentials.CAPEM)
	anonymous := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	admin := protoClient(t, srv, true)

	const readyChecks = "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]watch-cache ok\n[+]poststarthook/bootstrap-controller ok\n[+]shutdown ok\n"
	const liveChecks = "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/bootstrap-controller ok\n"
	for _, tc := range []struct {
		name      string
		path      string
		storeDown bool
		token     bool
		wantCode  int
		wantBody  string
	}{
		{name: "readyz", path: "/readyz", wantCode: 200, wantBody: "ok"},
		{name: "livez", path: "/livez", wantCode: 200, wantBody: "ok"},
		{name: "healthz", path: "/healthz", wantCode: 200, wantBody: "ok"},
		{name: "readyz verbose", path: "/readyz?verbose", wantCode: 200, wantBody: readyChecks + "readyz check passed\n"},
		{name: "livez verbose", path: "/livez?verbose", wantCode: 200, wantBody: liveChecks + "livez check passed\n"},
		{name: "healthz verbose", path: "/healthz?verbose=1", wantCode: 200, wantBody: liveChecks + "healthz check passed\n"},
		{name: "exclude", path: "/readyz?verbose&exclude=etcd&exclude=shutdown&exclude=nope&exclude=other", wantCode: 200,
			wantBody: "[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]watch-cache ok\n[+]poststarthook/bootstrap-controller ok\n[+]shutdown excluded: ok\n" +
				"warn: some health checks cannot be excluded: no matches for \"nope\",\"other\"\nreadyz check passed\n"},
		{name: "one check", path: "/readyz/etcd", token: true, wantCode: 200, wantBody: "ok"},
		{name: "one post-start hook", path: "/livez/poststarthook/bootstrap-controller", token: true, wantCode: 200, wantBody: "ok"},
		{name: "one check needs credentials", path: "/readyz/ping", wantCode: 401},
		{name: "no such check", path: "/healthz/nope", token: true, wantCode: 404},
		{name: "store down: readyz", path: "/readyz", storeDown: true, wantCode: 500,
			wantBody: "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[+]watch-cache ok\n[+]poststarthook/bootstrap-controller ok\n[+]shutdown ok\nreadyz check failed\n"},
		{name: "store down: livez", path: "/livez?verbose", storeDown: true, wantCode: 500,
			wantBody: "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[+]poststarthook/bootstrap-controller ok\nlivez check failed\n"},
		{name: "store down: excluded", path: "/readyz?exclude=etcd", storeDown: true, wantCode: 200, wantBody: "ok"},
		{name: "store down: the check tells why", path: "/readyz/etcd", token: true, storeDown: true, wantCode: 500,
			wantBody: "internal server error: store unreachable\n"},
		{name: "store down: other checks pass", path: "/readyz/ping", token: true, storeDown: true, wantCode: 200, wantBody: "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store.down.Store(tc.storeDown)
			defer store.down.Store(false)
			hc := anonymous
			if tc.token {
				hc = admin
			}
			resp, err := hc.Get(srv.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantCode {
				t.Fatalf("GET %s: %d %q, want %d", tc.path, resp.StatusCode, body, tc.wantCode)
			}
			if tc.wantBody != "" && string(body) != tc.wantBody {
				t.Errorf("GET %s: body\n%s\nwant\n%s", tc.path, body, tc.wantBody)
			}
			if tc.wantBody != "" && resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
				t.Errorf("GET %s: Content-Type %q, want text/plain; charset=utf-8", tc.path, resp.Header.Get("Content-Type"))
			}
		})
	}
}

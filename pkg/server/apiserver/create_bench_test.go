package apiserver_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// BenchmarkCreate measures one client's ConfigMap creates through the
// whole server (TLS, HTTP/2, filters, decode, store, encode) on the
// memory store, as the harness's creates with one client run them.
func BenchmarkCreate(b *testing.B) {
	srv := apiservertest.Start(b)
	hc, err := rest.HTTPClientFor(srv.Config)
	if err != nil {
		b.Fatal(err)
	}
	data := strings.Repeat("x", 256)
	url := srv.URL + "/api/v1/namespaces/default/configmaps"
	i := 0
	for b.Loop() {
		i++
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%d"},"data":{"k":%q}}`, i, data)
		req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("create: %d", resp.StatusCode)
		}
	}
}

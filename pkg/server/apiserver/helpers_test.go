package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// client sends raw requests to a test server, so tests see exactly the
// status codes and bodies real clients get.
type client struct {
	t    testing.TB
	base string
	http *http.Client
	srv  *apiservertest.Server
}

func newClient(t testing.TB) *client {
	t.Helper()
	srv := apiservertest.Start(t)
	return clientFor(t, srv)
}

func clientFor(t testing.TB, srv *apiservertest.Server) *client {
	t.Helper()
	hc, err := rest.HTTPClientFor(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, base: srv.URL, http: hc, srv: srv}
}

type response struct {
	code   int
	body   []byte
	header http.Header
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, r.body)
	}
	return m
}

// do sends a request; headers alternate name, value.
func (c *client) do(method, path string, body any, headers ...string) response {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		js, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequestWithContext(c.t.Context(), method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return response{code: resp.StatusCode, body: b, header: resp.Header}
}

// must sends a request and fails the test unless the code is want.
func (c *client) must(want int, method, path string, body any, headers ...string) map[string]any {
	c.t.Helper()
	r := c.do(method, path, body, headers...)
	if r.code != want {
		c.t.Fatalf("%s %s: got %d, want %d: %s", method, path, r.code, want, r.body)
	}
	if len(r.body) == 0 {
		return nil
	}
	return r.json(c.t)
}

func (c *client) createNamespace(name string) {
	c.t.Helper()
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces", map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name},
	})
}

func configMap(ns, name string, data map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"data":     data,
	}
}

func meta(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func listLen(srv *apiservertest.Server, prefix string) int {
	res, err := srv.Storage.List(context.Background(), prefix, storage.ListOptions{})
	if err != nil {
		panic(err)
	}
	return len(res.Items)
}

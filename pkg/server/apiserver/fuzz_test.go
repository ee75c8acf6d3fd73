package apiserver

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// FuzzRequest sends arbitrary requests to the handler: whatever comes in,
// the answer is never a 5xx, every error is a Status with the code of the
// response, and the server keeps serving.
func FuzzRequest(f *testing.F) {
	seeds := []struct{ method, path, ctype, body string }{
		{"POST", "/api/v1/namespaces/demo/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`},
		{"POST", "/api/v1/namespaces/demo/configmaps", "application/yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\n"},
		{"PUT", "/api/v1/namespaces/demo/configmaps/a", "application/json", `{"metadata":{"name":"a","resourceVersion":"1"}}`},
		{"PATCH", "/api/v1/namespaces/demo/configmaps/a", "application/json-patch+json", `[{"op":"add","path":"/data/x","value":"1"}]`},
		{"PATCH", "/api/v1/namespaces/demo/configmaps/a", "application/merge-patch+json", `{"data":{"x":null}}`},
		{"PATCH", "/api/v1/namespaces/demo/configmaps/a", "application/strategic-merge-patch+json", `{"data":{"y":"2"}}`},
		{"DELETE", "/api/v1/namespaces/demo/configmaps/a", "application/json", `{"preconditions":{"uid":"x"}}`},
		{"GET", "/api/v1/namespaces/demo/configmaps?labelSelector=a%3Db&limit=1", "", ""},
		{"POST", "/api/v1/namespaces/demo/configmaps", "application/vnd.kubernetes.protobuf", "k8s\x00\x0a\x0c\x0a\x02v1\x12\x06Config"},
		{"POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", `{"metadata":{"name":"a.b.c"},"spec":{"group":"b.c","names":{"plural":"a","kind":"A"},"scope":"Cluster","versions":[{"name":"v1","served":true,"storage":true}]}}`},
		{"POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"x","labels":{"":""}}}`},
		{"PATCH", "/api/v1/namespaces/demo/configmaps/a?fieldManager=m", "application/apply-patch+yaml", "apiVersion: v1\nkind: ConfigMap\ndata: {z: '1'}\n"},
		{"PATCH", "/api/v1/namespaces/demo/configmaps/new?fieldManager=m&force=true", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"managedFields":[{}]}}`},
		{"POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json", `{}`},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.ctype, []byte(s.body))
	}
	_, serve := startFuzzServer(f)
	mustServe(f, serve, 201, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"demo"}}`)
	f.Fuzz(func(t *testing.T, method, path, ctype string, body []byte) {
		switch method {
		case "GET", "POST", "PUT", "PATCH", "DELETE":
		default:
			method = "GET"
		}
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		if strings.Contains(path, "watch") {
			// Watches stream until they time out; covered elsewhere.
			return
		}
		rec := serve(method, path, ctype, string(body))
		if rec.Code >= 500 {
			t.Fatalf("%s %s (%s): got %d: %s", method, path, ctype, rec.Code, rec.Body)
		}
		if rec.Code >= 400 && rec.Header().Get("Content-Type") == "application/json" {
			var st struct {
				Kind string
				Code int
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Kind != "Status" || st.Code != rec.Code {
				t.Fatalf("%s %s: error %d is not a Status with that code: %s", method, path, rec.Code, rec.Body)
			}
		}
		// Inputs may delete anything, the namespace too; a list always
		// answers while the server serves.
		if rec := serve("GET", "/api/v1/namespaces", "", ""); rec.Code != 200 {
			t.Fatalf("server stopped serving after %s %s: %d", method, path, rec.Code)
		}
	})
}

type serveFunc func(method, target, ctype, body string) *httptest.ResponseRecorder

// startFuzzServer starts a server on memory storage for a fuzz target
// and returns a way to send it requests without a network.
func startFuzzServer(f *testing.F) (*Server, serveFunc) {
	store := memory.New()
	s, err := New(Config{Storage: store})
	if err != nil {
		f.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	f.Cleanup(func() { cancel(); <-done; store.Close() })
	<-s.Ready()
	h := s.Handler()
	serve := func(method, target, ctype string, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "https://setpoint.test/", strings.NewReader(body))
		req.URL.RawQuery = ""
		if u, err := url.ParseRequestURI(target); err == nil {
			req.URL.Path, req.URL.RawQuery = u.Path, u.RawQuery
		} else {
			req.URL.Path = target
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	return s, serve
}

func mustServe(f *testing.F, serve serveFunc, want int, method, target, ctype, body string) {
	f.Helper()
	if rec := serve(method, target, ctype, body); rec.Code != want {
		f.Fatalf("%s %s: got %d, want %d: %s", method, target, rec.Code, want, rec.Body)
	}
}

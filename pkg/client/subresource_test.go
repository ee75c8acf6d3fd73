package client_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// TestCreateSubresource: the body goes by POST to the object's
// subresource path as its own kind; a Status answer leaves the body as
// sent, an object answer is read back, an error answer is a StatusError.
func TestCreateSubresource(t *testing.T) {
	tests := []struct {
		name        string
		proto       bool
		subresource string
		body        client.Object
		status      int
		answer      string
		wantPath    string
		wantType    string
		wantBody    string // a substring of the JSON body sent
		wantErr     func(error) bool
		check       func(t *testing.T, body client.Object)
	}{
		{
			name: "binding answered by a Status", subresource: "binding",
			body:     &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "demo"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}},
			status:   http.StatusCreated,
			answer:   `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`,
			wantPath: "/api/v1/namespaces/demo/pods/p/binding", wantType: "application/json",
			wantBody: `"kind":"Binding"`,
			check: func(t *testing.T, body client.Object) {
				if b := body.(*corev1.Binding); b.Target.Name != "n1" || b.Name != "p" {
					t.Errorf("body changed by a Status answer: %+v", b)
				}
			},
		},
		{
			name: "binding as protobuf", proto: true, subresource: "binding",
			body:     &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "demo"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}},
			status:   http.StatusCreated,
			answer:   `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`,
			wantPath: "/api/v1/namespaces/demo/pods/p/binding", wantType: "application/vnd.kubernetes.protobuf",
		},
		{
			name: "eviction answered with the object", subresource: "eviction",
			body:     &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "demo"}},
			status:   http.StatusCreated,
			answer:   `{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"p","namespace":"demo","uid":"u1"}}`,
			wantPath: "/api/v1/namespaces/demo/pods/p/eviction", wantType: "application/json",
			wantBody: `"apiVersion":"policy/v1"`,
			check: func(t *testing.T, body client.Object) {
				if body.GetUID() != "u1" {
					t.Errorf("answer not read back: uid %q", body.GetUID())
				}
			},
		},
		{
			name: "conflict", subresource: "binding",
			body:     &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "demo"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}},
			status:   http.StatusConflict,
			answer:   `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Conflict","code":409,"message":"pod p is already assigned to node \"n0\""}`,
			wantPath: "/api/v1/namespaces/demo/pods/p/binding", wantType: "application/json",
			wantErr: client.IsConflict,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var gotMethod, gotPath, gotType, gotBody string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				gotMethod, gotPath, gotType, gotBody = r.Method, r.URL.Path, r.Header.Get("Content-Type"), string(b)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.answer))
			}))
			defer srv.Close()
			m := meta.NewDefaultRESTMapper(nil)
			m.Add(corev1.SchemeGroupVersion.WithKind("Pod"), meta.RESTScopeNamespace)
			c, err := client.New(&rest.Config{Host: srv.URL}, client.Options{RESTMapper: m, DisableProtobuf: !tt.proto})
			if err != nil {
				t.Fatal(err)
			}
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "demo"}}
			err = c.CreateSubresource(ctx(t), pod, tt.subresource, tt.body)
			switch {
			case tt.wantErr != nil && !tt.wantErr(err):
				t.Errorf("error: got %v, want a match", err)
			case tt.wantErr == nil && err != nil:
				t.Fatalf("CreateSubresource: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if gotMethod != http.MethodPost || gotPath != tt.wantPath || gotType != tt.wantType {
				t.Errorf("request: got %s %s (%s), want POST %s (%s)", gotMethod, gotPath, gotType, tt.wantPath, tt.wantType)
			}
			if tt.wantBody != "" && !contains(gotBody, tt.wantBody) {
				t.Errorf("body %s lacks %s", gotBody, tt.wantBody)
			}
			if tt.check != nil {
				tt.check(t, tt.body)
			}
		})
	}
}

// TestCreateSubresourceArguments: the call is refused before any request
// when the subresource, the name or the namespace is missing.
func TestCreateSubresourceArguments(t *testing.T) {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(corev1.SchemeGroupVersion.WithKind("Pod"), meta.RESTScopeNamespace)
	c, err := client.New(&rest.Config{Host: "http://127.0.0.1:1"}, client.Options{RESTMapper: m})
	if err != nil {
		t.Fatal(err)
	}
	binding := &corev1.Binding{}
	tests := []struct {
		name string
		pod  *corev1.Pod
		sub  string
		want error
	}{
		{"no name", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo"}}, "binding", client.ErrMissingName},
		{"no namespace", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, "binding", client.ErrMissingNamespace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.CreateSubresource(ctx(t), tt.pod, tt.sub, binding); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
	if err := c.CreateSubresource(ctx(t), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "demo"}}, "", binding); err == nil {
		t.Errorf("no subresource: got no error")
	}
}

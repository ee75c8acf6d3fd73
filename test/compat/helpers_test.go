package compat_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

const (
	// protobufContentType is what client-go sends for protobuf.
	protobufContentType = "application/vnd.kubernetes.protobuf"
	// waitTimeout bounds every poll in these tests.
	waitTimeout = 20 * time.Second
	// pollInterval is how often a poll looks again.
	pollInterval = 50 * time.Millisecond
)

// recordedRequest is one request a client made and the server's answer.
type recordedRequest struct {
	At          time.Time
	Method      string
	URL         *url.URL
	Accept      string
	ContentType string
	Body        string // request body, for writes (truncated)
	Status      int
	RespType    string
	RespBody    string // only for error answers (truncated)
	Err         error
}

func (r recordedRequest) String() string {
	s := fmt.Sprintf("%s %s %s accept=%q content-type=%q -> %d %q", r.At.Format("15:04:05.000"), r.Method, r.URL.RequestURI(), r.Accept, r.ContentType, r.Status, r.RespType)
	if r.Err != nil {
		s += fmt.Sprintf(" error=%v", r.Err)
	}
	if r.Body != "" {
		s += "\n    request body: " + strings.TrimSpace(r.Body)
	}
	if r.RespBody != "" {
		s += "\n    response body: " + strings.TrimSpace(r.RespBody)
	}
	return s
}

// isWatch says whether the request is a watch.
func (r recordedRequest) isWatch() bool { return r.URL.Query().Get("watch") == "true" }

// recorder records every request of the clients built from its config,
// and logs them all when the test fails, as evidence for a server bug
// (or always, with COMPAT_DUMP_REQUESTS=1 in the environment).
type recorder struct {
	mu   sync.Mutex
	reqs []recordedRequest
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	t.Cleanup(func() {
		if !t.Failed() && os.Getenv("COMPAT_DUMP_REQUESTS") == "" {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		var b strings.Builder
		for i, req := range r.reqs {
			fmt.Fprintf(&b, "  #%d %s\n", i, req)
		}
		t.Logf("requests made by the client (%d):\n%s", len(r.reqs), b.String())
	})
	return r
}

// wrap returns a copy of cfg whose clients record through r.
func (r *recorder) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	prev := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prev != nil {
			rt = prev(rt)
		}
		return &recordingTransport{rec: r, next: rt}
	}
	return cfg
}

// requests returns the recorded requests that match keep (all if nil).
func (r *recorder) requests(keep func(recordedRequest) bool) []recordedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []recordedRequest
	for _, req := range r.reqs {
		if keep == nil || keep(req) {
			out = append(out, req)
		}
	}
	return out
}

type recordingTransport struct {
	rec  *recorder
	next http.RoundTripper
}

const maxRecordedBody = 2048

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rr := recordedRequest{
		At:     time.Now(),
		Method: req.Method, URL: req.URL,
		Accept: req.Header.Get("Accept"), ContentType: req.Header.Get("Content-Type"),
	}
	if req.Body != nil && req.GetBody != nil && req.Method != http.MethodGet {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(body, maxRecordedBody))
			_ = body.Close()
			rr.Body = printable(b)
		}
	}
	resp, err := t.next.RoundTrip(req)
	rr.Err = err
	if resp != nil {
		rr.Status = resp.StatusCode
		rr.RespType = resp.Header.Get("Content-Type")
		if resp.StatusCode >= 400 {
			b, rerr := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if rerr == nil {
				resp.Body = io.NopCloser(bytes.NewReader(b))
				if len(b) > maxRecordedBody {
					b = b[:maxRecordedBody]
				}
				rr.RespBody = printable(b)
			}
		}
	}
	t.rec.mu.Lock()
	t.rec.reqs = append(t.rec.reqs, rr)
	t.rec.mu.Unlock()
	return resp, err
}

// printable shows JSON as is and binary (protobuf) bodies quoted.
func printable(b []byte) string {
	for _, c := range b {
		if c < 0x09 || c > 0x7e && c < 0xa0 {
			return fmt.Sprintf("%q", b)
		}
	}
	return string(b)
}

// waitFor polls cond until it reports true, failing the test with what
// after waitTimeout. cond may also fail the test outright.
func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	var lastErr error
	for {
		ok, err := cond()
		if ok {
			return
		}
		lastErr = err
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s (last error: %v)", waitTimeout, what, lastErr)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("test ended while waiting for %s", what)
		case <-time.After(pollInterval):
		}
	}
}

// receive takes the next value from ch, failing the test with what if
// none comes within waitTimeout.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out after %v waiting for %s", waitTimeout, what)
	}
	panic("unreachable")
}

// createNamespace creates a namespace named after prefix.
func createNamespace(t *testing.T, cs kubernetes.Interface, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	return name
}

// crdGVR is the CustomResourceDefinition resource.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// crdSpec describes a test CRD in the example.com group.
type crdSpec struct {
	kind, plural, singular string
	namespaced             bool
	shortNames             []string
}

func (s crdSpec) name() string { return s.plural + ".example.com" }

func (s crdSpec) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: s.plural}
}

func (s crdSpec) gvk() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: s.kind}
}

// object builds an unstructured CRD for s, with a status subresource and
// a schema that keeps unknown fields of spec and status.
func (s crdSpec) object() *unstructured.Unstructured {
	scope := "Cluster"
	if s.namespaced {
		scope = "Namespaced"
	}
	shortNames := make([]any, 0, len(s.shortNames))
	for _, n := range s.shortNames {
		shortNames = append(shortNames, n)
	}
	preserve := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": s.name()},
		"spec": map[string]any{
			"group": "example.com",
			"scope": scope,
			"names": map[string]any{
				"kind": s.kind, "listKind": s.kind + "List",
				"plural": s.plural, "singular": s.singular,
				"shortNames": shortNames,
			},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec":   preserve,
						"status": preserve,
					},
				}},
			}},
		},
	}}
}

// createCRD creates s through the dynamic client and returns the stored
// CRD.
func createCRD(t *testing.T, dc dynamic.Interface, s crdSpec) *unstructured.Unstructured {
	t.Helper()
	got, err := dc.Resource(crdGVR).Create(t.Context(), s.object(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create CRD %s: %v", s.name(), err)
	}
	return got
}

// deleteCRDAndWait deletes the CRD and waits until it is gone.
func deleteCRDAndWait(t *testing.T, dc dynamic.Interface, s crdSpec) {
	t.Helper()
	ctx := t.Context()
	if err := dc.Resource(crdGVR).Delete(ctx, s.name(), metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete CRD %s: %v", s.name(), err)
	}
	waitFor(t, "CRD "+s.name()+" to be gone", func() (bool, error) {
		_, err := dc.Resource(crdGVR).Get(ctx, s.name(), metav1.GetOptions{})
		return apierrors.IsNotFound(err), err
	})
}

// ctxWithTimeout is t.Context() bounded by waitTimeout.
func ctxWithTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

package client_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// helpers are the error predicates, by name.
var helpers = []struct {
	name string
	is   func(error) bool
}{
	{"NotFound", client.IsNotFound},
	{"AlreadyExists", client.IsAlreadyExists},
	{"Conflict", client.IsConflict},
	{"Invalid", client.IsInvalid},
	{"Gone", client.IsGone},
	{"ResourceExpired", client.IsResourceExpired},
	{"Forbidden", client.IsForbidden},
	{"Unauthorized", client.IsUnauthorized},
	{"BadRequest", client.IsBadRequest},
	{"Timeout", client.IsTimeout},
	{"TooManyRequests", client.IsTooManyRequests},
	{"TooLargeResourceVersion", client.IsTooLargeResourceVersion},
}

// which returns the names of the predicates err satisfies.
func which(err error) []string {
	var out []string
	for _, h := range helpers {
		if h.is(err) {
			out = append(out, h.name)
		}
	}
	return out
}

// TestErrorHelpers provokes each kind of error from a real server and
// checks that exactly the right predicates hold.
func TestErrorHelpers(t *testing.T) {
	srv := apiservertest.Start(t)
	c, _ := newClient(t, srv, client.Options{})
	ctx := ctx(t)
	createNamespace(t, c, "demo")
	for _, name := range []string{"a", "b", "c"} {
		if err := c.Create(ctx, configMap("demo", name, nil)); err != nil {
			t.Fatal(err)
		}
	}
	// A namespace held by a finalizer stays Terminating after delete.
	held := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}}
	if err := c.Create(ctx, held); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, held); err != nil {
		t.Fatal(err)
	}
	badToken := rest.CopyConfig(srv.Config)
	badToken.BearerToken = "wrong"
	stranger, err := client.New(badToken, client.Options{})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		call       func() error
		wantReason metav1.StatusReason
		wantCode   int32
		want       []string
	}{
		{"404 missing object", func() error {
			return c.Get(ctx, types.NamespacedName{Namespace: "demo", Name: "nope"}, &corev1.ConfigMap{})
		}, metav1.StatusReasonNotFound, 404, []string{"NotFound"}},
		{"409 already exists", func() error { return c.Create(ctx, configMap("demo", "a", nil)) },
			metav1.StatusReasonAlreadyExists, 409, []string{"AlreadyExists"}},
		{"409 conflict", func() error {
			stale := configMap("demo", "a", nil)
			stale.ResourceVersion = "1"
			return c.Update(ctx, stale)
		}, metav1.StatusReasonConflict, 409, []string{"Conflict"}},
		{"422 invalid", func() error { return c.Create(ctx, configMap("demo", "Not_Valid", nil)) },
			metav1.StatusReasonInvalid, 422, []string{"Invalid"}},
		{"400 bad request", func() error {
			return c.List(ctx, &corev1.ConfigMapList{}, client.LabelSelector("a in ("))
		}, metav1.StatusReasonBadRequest, 400, []string{"BadRequest"}},
		{"410 expired continue token", func() error {
			var page corev1.ConfigMapList
			if err := c.List(ctx, &page, client.InNamespace("demo"), client.Limit(1)); err != nil {
				return err
			}
			cm := configMap("demo", "later", nil)
			if err := c.Create(ctx, cm); err != nil {
				return err
			}
			rev, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
			if err := srv.Storage.Compact(ctx, rev); err != nil {
				return err
			}
			return c.List(ctx, &page, client.InNamespace("demo"), client.Limit(1), client.Continue(page.Continue))
		}, metav1.StatusReasonExpired, 410, []string{"Gone", "ResourceExpired"}},
		{"403 terminating namespace", func() error { return c.Create(ctx, configMap("held", "x", nil)) },
			metav1.StatusReasonForbidden, 403, []string{"Forbidden"}},
		{"401 wrong token", func() error {
			return stranger.Get(ctx, types.NamespacedName{Namespace: "demo", Name: "a"}, &corev1.ConfigMap{})
		}, metav1.StatusReasonUnauthorized, 401, []string{"Unauthorized"}},
		{"504 resourceVersion too large", func() error {
			return c.List(ctx, &corev1.ConfigMapList{}, client.ResourceVersion("999999999"))
		}, metav1.StatusReasonTimeout, 504, []string{"Timeout", "TooLargeResourceVersion"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var se *client.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("got %v (%T), want a *StatusError", err, err)
			}
			if se.ErrStatus.Reason != tt.wantReason || se.ErrStatus.Code != tt.wantCode || client.ReasonForError(err) != tt.wantReason {
				t.Errorf("got reason %q code %d, want %q %d", se.ErrStatus.Reason, se.ErrStatus.Code, tt.wantReason, tt.wantCode)
			}
			if got := which(err); !slices.Equal(got, tt.want) {
				t.Errorf("predicates: got %v, want %v", got, tt.want)
			}
			// apimachinery's helpers read the same Status.
			if got := apierrors.ReasonForError(err); got != tt.wantReason {
				t.Errorf("apierrors.ReasonForError: got %q, want %q", got, tt.wantReason)
			}
		})
	}
}

// TestNonStatusAnswers: bodies that are not a Status still give a
// *StatusError that the predicates understand by code.
func TestNonStatusAnswers(t *testing.T) {
	tests := []struct {
		name        string
		code        int
		contentType string
		body        string
		want        []string
		wantMessage string
	}{
		{"html 404 from a proxy", 404, "text/html", "<html>not here</html>", []string{"NotFound"}, "not here"},
		{"plain 502", 502, "text/plain", "bad gateway", nil, "502"},
		{"empty 403", 403, "", "", []string{"Forbidden"}, "Forbidden"},
		{"json that is not a Status", 409, "application/json", `{"kind":"ConfigMap"}`, []string{"Conflict"}, "409"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.contentType != "" {
					w.Header().Set("Content-Type", tt.contentType)
				}
				w.WriteHeader(tt.code)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c := fakeClient(t, srv.URL)
			err := c.Get(ctx(t), types.NamespacedName{Namespace: "demo", Name: "x"}, &corev1.ConfigMap{})
			var se *client.StatusError
			if !errors.As(err, &se) || se.ErrStatus.Code != int32(tt.code) {
				t.Fatalf("got %v, want a *StatusError with code %d", err, tt.code)
			}
			if got := which(err); !slices.Equal(got, tt.want) {
				t.Errorf("predicates: got %v, want %v", got, tt.want)
			}
			if !strings.Contains(err.Error(), tt.wantMessage) {
				t.Errorf("message %q does not mention %q", err.Error(), tt.wantMessage)
			}
		})
	}
}

// TestRetryAfter: a 429 with Retry-After is retried a bounded number of
// times.
func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		throttled  int    // how many answers are 429 before a 200
		retryAfter string // the header; empty for none
		wantCalls  int32
		want       []string // predicates of the final error
	}{
		{"gets through after two", 2, "0", 3, nil},
		{"gives up after the bound", 100, "0", 4, []string{"TooManyRequests"}},
		{"no Retry-After, no retry", 100, "", 1, []string{"TooManyRequests"}},
		{"too long a wait is not waited", 100, "3600", 1, []string{"TooManyRequests"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := calls.Add(1)
				if int(n) <= tt.throttled {
					if tt.retryAfter != "" {
						w.Header().Set("Retry-After", tt.retryAfter)
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429,"message":"slow down"}`))
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"demo"}}`))
			}))
			defer srv.Close()
			c := fakeClient(t, srv.URL)
			err := c.Get(ctx(t), types.NamespacedName{Namespace: "demo", Name: "x"}, &corev1.ConfigMap{})
			if got := which(err); !slices.Equal(got, tt.want) {
				t.Errorf("predicates of %v: got %v, want %v", err, got, tt.want)
			}
			if got := calls.Load(); got != tt.wantCalls {
				t.Errorf("calls: got %d, want %d", got, tt.wantCalls)
			}
		})
	}
}

// fakeClient talks to a plain-HTTP test server, with a fixed mapper so
// no discovery is needed.
func fakeClient(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.New(&rest.Config{Host: url}, client.Options{RESTMapper: staticMapper()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestProtobufRefused: a server that answers a protobuf body with 415
// gets the same write again as JSON, and JSON from then on.
func TestProtobufRefused(t *testing.T) {
	var sent []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		sent = append(sent, ct)
		w.Header().Set("Content-Type", "application/json")
		if ct != "application/json" {
			w.WriteHeader(http.StatusUnsupportedMediaType)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"UnsupportedMediaType","code":415}`))
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"demo","uid":"u1"}}`))
	}))
	defer srv.Close()
	c := fakeClient(t, srv.URL)
	for range 2 {
		cm := configMap("demo", "x", nil)
		if err := c.Create(ctx(t), cm); err != nil || cm.UID != "u1" {
			t.Fatalf("Create: %v (uid %q)", err, cm.UID)
		}
	}
	want := []string{"application/vnd.kubernetes.protobuf", "application/json", "application/json"}
	if !slices.Equal(sent, want) {
		t.Errorf("bodies sent as %v, want %v", sent, want)
	}
}

package apiserver_test

import (
	"net/http"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
)

const selfSubjectReviews = "/apis/authentication.k8s.io/v1/selfsubjectreviews"

const selfSubjectReview = `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`

// TestSelfSubjectReview checks kubectl auth whoami: a create answers 201
// with the caller's identity and stores nothing.
func TestSelfSubjectReview(t *testing.T) {
	anonymous := apiservertest.StartWith(t, apiservertest.Options{
		Configure: func(cfg *apiserver.Config) { cfg.Authenticator = nil },
	})
	tests := []struct {
		name       string
		c          *client
		body       any
		headers    []string
		wantUser   string
		wantGroups []any
	}{
		{
			name:       "admin token",
			c:          newClient(t),
			body:       selfSubjectReview,
			wantUser:   credentials.AdminUser.Username,
			wantGroups: []any{"system:masters", "system:authenticated"},
		},
		{
			name:       "empty body kind and version from the URL",
			c:          newClient(t),
			body:       `{}`,
			wantUser:   credentials.AdminUser.Username,
			wantGroups: []any{"system:masters", "system:authenticated"},
		},
		{
			name:       "YAML body",
			c:          newClient(t),
			body:       "apiVersion: authentication.k8s.io/v1\nkind: SelfSubjectReview\n",
			headers:    []string{"Content-Type", "application/yaml"},
			wantUser:   credentials.AdminUser.Username,
			wantGroups: []any{"system:masters", "system:authenticated"},
		},
		{
			name:       "loopback token",
			c:          loopbackClient(t, apiservertest.Start(t)),
			body:       selfSubjectReview,
			wantUser:   "system:apiserver",
			wantGroups: []any{"system:authenticated", "system:masters"},
		},
		{
			name:       "client certificate",
			c:          certClient(t, apiservertest.Start(t), "alice", "dev", "ops"),
			body:       selfSubjectReview,
			wantUser:   "alice",
			wantGroups: []any{"dev", "ops", "system:authenticated"},
		},
		{
			name:       "client certificate in system:masters",
			c:          certClient(t, apiservertest.Start(t), "bob", "system:masters"),
			body:       selfSubjectReview,
			wantUser:   "bob",
			wantGroups: []any{"system:masters", "system:authenticated"},
		},
		{
			name:       "no authenticator",
			c:          clientFor(t, anonymous),
			body:       selfSubjectReview,
			wantUser:   "system:anonymous",
			wantGroups: []any{"system:unauthenticated"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.c.must(http.StatusCreated, "POST", selfSubjectReviews, tt.body, tt.headers...)
			if got["apiVersion"] != "authentication.k8s.io/v1" || got["kind"] != "SelfSubjectReview" {
				t.Errorf("got apiVersion %v kind %v, want authentication.k8s.io/v1 SelfSubjectReview", got["apiVersion"], got["kind"])
			}
			status, _ := got["status"].(map[string]any)
			user, _ := status["userInfo"].(map[string]any)
			if got, want := user["username"], tt.wantUser; got != want {
				t.Errorf("got username %v, want %v", got, want)
			}
			if got, want := mustJSON(user["groups"]), mustJSON(tt.wantGroups); got != want {
				t.Errorf("got groups %s, want %s", got, want)
			}
		})
	}
}

func TestSelfSubjectReviewOnlyCreates(t *testing.T) {
	c := newClient(t)
	tests := []struct {
		method string
		path   string
		body   any
	}{
		{"GET", selfSubjectReviews, nil},
		{"GET", selfSubjectReviews + "?watch=true", nil},
		{"GET", selfSubjectReviews + "/me", nil},
		{"PUT", selfSubjectReviews + "/me", selfSubjectReview},
		{"PATCH", selfSubjectReviews + "/me", `{}`},
		{"DELETE", selfSubjectReviews + "/me", nil},
		{"DELETE", selfSubjectReviews, nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			headers := []string{}
			if tt.method == "PATCH" {
				headers = []string{"Content-Type", "application/merge-patch+json"}
			}
			r := c.do(tt.method, tt.path, tt.body, headers...)
			if r.code != http.StatusMethodNotAllowed {
				t.Fatalf("got %d, want 405: %s", r.code, r.body)
			}
			if st := r.json(t); st["kind"] != "Status" || st["reason"] != "MethodNotAllowed" {
				t.Errorf("got %v, want a MethodNotAllowed Status", st)
			}
		})
	}
	// Discovery offers create alone, which is what kubectl auth whoami
	// looks for.
	disc := c.must(http.StatusOK, "GET", "/apis/authentication.k8s.io/v1", nil)
	var verbs any
	for _, r := range disc["resources"].([]any) {
		if rm := r.(map[string]any); rm["name"] == "selfsubjectreviews" {
			verbs = rm["verbs"]
		}
	}
	if got, want := mustJSON(verbs), `["create"]`; got != want {
		t.Errorf("got discovery verbs %s for selfsubjectreviews, want %s", got, want)
	}
	// A review is an answer, not an object: nothing is kept.
	c.must(http.StatusCreated, "POST", selfSubjectReviews, selfSubjectReview)
	if n := listLen(c.srv, "/registry/authentication.k8s.io/"); n != 0 {
		t.Errorf("got %d stored objects under authentication.k8s.io, want 0", n)
	}
}

// certClient reaches srv with a client certificate for user in groups,
// signed by the server's CA, and no token.
func certClient(t *testing.T, srv *apiservertest.Server, user string, groups ...string) *client {
	t.Helper()
	cc, err := srv.Credentials.CA().IssueClientCert(credentials.ClientCertOptions{User: user, Groups: groups})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(srv.Config)
	cfg.CertData, cfg.KeyData = cc.CertPEM, cc.KeyPEM
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, base: srv.URL, http: hc, srv: srv}
}

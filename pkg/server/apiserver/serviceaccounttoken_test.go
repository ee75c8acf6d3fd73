package apiserver_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
)

const (
	issuer       = apiserver.DefaultServiceAccountIssuer
	tokenReviews = "/apis/authentication.k8s.io/v1/tokenreviews"
)

// saWorld is a test server with a clock the test moves, the key its
// tokens are signed with, and in namespace team: service accounts
// default and runner, a pod web running as runner on node n1, a pod
// stray running as runner on a node that does not exist, a pod
// default-pod running as default, and a secret s1.
type saWorld struct {
	*client
	srv   *apiservertest.Server
	key   *serviceaccount.Key
	clock *testClock
	uids  map[string]string // "kind/name" -> uid
}

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newSAWorld(t *testing.T, configure func(*apiserver.Config)) *saWorld {
	t.Helper()
	key, err := serviceaccount.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: time.Now()}
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.Now = clock.Now
		cfg.ServiceAccounts.Key = key
		if configure != nil {
			configure(cfg)
		}
	}})
	w := &saWorld{client: clientFor(t, srv), srv: srv, key: key, clock: clock, uids: map[string]string{}}
	w.createNamespace("team")
	w.create("ServiceAccount", "/api/v1/namespaces/team/serviceaccounts", object("v1", "ServiceAccount", "default", nil))
	w.create("ServiceAccount", "/api/v1/namespaces/team/serviceaccounts", object("v1", "ServiceAccount", "runner", nil))
	w.create("Node", "/api/v1/nodes", object("v1", "Node", "n1", nil))
	w.create("Pod", "/api/v1/namespaces/team/pods", podAs("web", "runner", "n1"))
	w.create("Pod", "/api/v1/namespaces/team/pods", podAs("stray", "runner", "gone"))
	w.create("Pod", "/api/v1/namespaces/team/pods", podAs("default-pod", "default", ""))
	w.create("Secret", "/api/v1/namespaces/team/secrets", object("v1", "Secret", "s1", nil))
	return w
}

func object(apiVersion, kind, name string, fields map[string]any) map[string]any {
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}
	for k, v := range fields {
		obj[k] = v
	}
	return obj
}

func podAs(name, serviceAccount, node string) map[string]any {
	p := pod(name, node, container("app", "nginx"))
	p["spec"].(map[string]any)["serviceAccountName"] = serviceAccount
	return p
}

// create creates obj and remembers its uid.
func (w *saWorld) create(kind, path string, obj map[string]any) {
	w.t.Helper()
	got := w.must(http.StatusCreated, "POST", path, obj)
	w.uids[kind+"/"+str(meta(got)["name"])] = str(meta(got)["uid"])
}

// token asks for a token for team's service account sa.
func (w *saWorld) token(sa string, spec map[string]any) string {
	w.t.Helper()
	got := w.must(http.StatusCreated, "POST", "/api/v1/namespaces/team/serviceaccounts/"+sa+"/token", map[string]any{"spec": spec})
	return str(got["status"].(map[string]any)["token"])
}

// as reaches the server with a bearer token and nothing else.
func (w *saWorld) as(token string) *client {
	w.t.Helper()
	cfg := rest.AnonymousClientConfig(w.srv.Config)
	cfg.BearerToken = token
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	return &client{t: w.t, base: w.srv.URL, http: hc, srv: w.srv}
}

// claims decodes a token's payload.
func claims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a compact JWS", token)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// statusOf is the part of a Status a test compares.
func statusOf(m map[string]any) string {
	return mustJSON(map[string]any{"code": m["code"], "reason": m["reason"], "message": m["message"], "details": m["details"]})
}

// TestTokenRequest checks serviceaccounts/token answers and refusals,
// worded as kube-apiserver v1.33 words them (compared against it).
func TestTokenRequest(t *testing.T) {
	w := newSAWorld(t, func(cfg *apiserver.Config) { cfg.ServiceAccounts.MaxTokenExpiration = 2 * 24 * time.Hour })
	const year = 365 * 24 * 60 * 60
	tests := []struct {
		name string
		sa   string
		body string
		// On success: the answer's spec, the token's kubernetes.io
		// claim, its lifetime and warnafter (from iat), the answer's
		// lifetime (expirationTimestamp from creationTimestamp) and
		// the Warning header.
		wantSpec      string
		wantKube      func(w *saWorld) map[string]any
		wantTokenLife int64
		wantWarnAfter int64
		wantLife      int64
		wantWarning   string
		// On refusal: the Status.
		wantCode   int
		wantStatus string
	}{
		{
			name: "defaults", sa: "default", body: `{}`,
			wantSpec: `{"audiences":["` + issuer + `"],"boundObjectRef":null,"expirationSeconds":3600}`,
			wantKube: func(w *saWorld) map[string]any {
				return map[string]any{"namespace": "team", "serviceaccount": map[string]any{"name": "default", "uid": w.uids["ServiceAccount/default"]}}
			},
			wantTokenLife: 3600, wantLife: 3600,
		},
		{
			name: "audiences and lifetime", sa: "default",
			body:     `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"audiences":["vault","` + issuer + `"],"expirationSeconds":700}}`,
			wantSpec: `{"audiences":["vault","` + issuer + `"],"boundObjectRef":null,"expirationSeconds":700}`,
			wantKube: func(w *saWorld) map[string]any {
				return map[string]any{"namespace": "team", "serviceaccount": map[string]any{"name": "default", "uid": w.uids["ServiceAccount/default"]}}
			},
			wantTokenLife: 700, wantLife: 700,
		},
		{
			name: "bound to a pod records its node", sa: "runner",
			body:     `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"web"}}}`,
			wantSpec: `{"audiences":["` + issuer + `"],"boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"web"},"expirationSeconds":3600}`,
			wantKube: func(w *saWorld) map[string]any {
				return map[string]any{
					"namespace": "team", "serviceaccount": map[string]any{"name": "runner", "uid": w.uids["ServiceAccount/runner"]},
					"pod":  map[string]any{"name": "web", "uid": w.uids["Pod/web"]},
					"node": map[string]any{"name": "n1", "uid": w.uids["Node/n1"]},
				}
			},
			wantTokenLife: 3600, wantLife: 3600,
		},
		{
			name: "a pod on a missing node records its name alone", sa: "runner",
			body:     `{"spec":{"boundObjectRef":{"kind":"Pod","name":"stray"}}}`,
			wantSpec: `{"audiences":["` + issuer + `"],"boundObjectRef":{"kind":"Pod","name":"stray"},"expirationSeconds":3600}`,
			wantKube: func(w *saWorld) map[string]any {
				return map[string]any{
					"namespace": "team", "serviceaccount": map[string]any{"name": "runner", "uid": w.uids["ServiceAccount/runner"]},
					"pod": map[string]any{"name": "stray", "uid": w.uids["Pod/stray"]}, "node": map[string]any{"name": "gone"},
				}
			},
			wantTokenLife: 3600, wantLife: 3600,
		},
		{
			name: "the kubelet's lifetime is extended for a pod", sa: "runner",
			body:     `{"spec":{"boundObjectRef":{"kind":"Pod","name":"web"},"expirationSeconds":3607}}`,
			wantSpec: `{"audiences":["` + issuer + `"],"boundObjectRef":{"kind":"Pod","name":"web"},"expirationSeconds":3607}`,
			wantKube: func(w *saWorld) map[string]any {
				return map[string]any{
					"namespace": "team", "serviceaccount": map[string]any{"name": "runner", "uid": w.uids["ServiceAccount/runner"]},
					"pod":  map[string]any{"name": "web", "uid": w.uids["Pod/web"]},
					"node": map[string]any{"name": "n1", "uid": w.uids["Node/n1"]},
				}
			},
			wantTokenLife: year, wantWarnAfter: 3607, wantLife: 3607,
		},
		{
			name: "bound to a secret with its uid", sa: "default",
			body: `{"spec":{"boundObjectRef":{"kind":"Secret","name":"s1","uid":"UID:Secret/s1"}}}`,
			wantKube: func(w *saWorld) map[string]any {
				return map[string]any{
					"namespace": "team", "serviceaccount": map[string]any{"name": "default", "uid": w.uids["ServiceAccount/default"]},
					"secret": map[string]any{"name": "s1", "uid": w.uids["Secret/s1"]},
				}
			},
			wantTokenLife: 3600, wantLife: 3600,
		},
		{
			name: "bound to a node", sa: "default",
			body: `{"spec":{"boundObjectRef":{"kind":"Node","name":"n1"}}}`,
			wantKube: func(w *saWorld) map[string]any {
				return map[string]any{
					"namespace": "team", "serviceaccount": map[string]any{"name": "default", "uid": w.uids["ServiceAccount/default"]},
					"node": map[string]any{"name": "n1", "uid": w.uids["Node/n1"]},
				}
			},
			wantTokenLife: 3600, wantLife: 3600,
		},
		{
			name: "shortened to the server's maximum", sa: "default", body: `{"spec":{"expirationSeconds":864000}}`,
			wantSpec: `{"audiences":["` + issuer + `"],"boundObjectRef":null,"expirationSeconds":172800}`,
			wantKube: func(w *saWorld) map[string]any {
				return map[string]any{"namespace": "team", "serviceaccount": map[string]any{"name": "default", "uid": w.uids["ServiceAccount/default"]}}
			},
			wantTokenLife: 172800, wantLife: 172800,
			wantWarning: `299 - "requested expiration of 864000 seconds shortened to 172800 seconds"`,
		},
		{
			name: "missing service account", sa: "nope", body: `{}`, wantCode: 404,
			wantStatus: `{"code":404,"details":{"kind":"serviceaccounts","name":"nope"},"message":"serviceaccounts \"nope\" not found","reason":"NotFound"}`,
		},
		{
			name: "another name in the body", sa: "default", body: `{"metadata":{"name":"x"}}`, wantCode: 422,
			wantStatus: `{"code":422,"details":{"causes":[{"field":"metadata.name","message":"Invalid value: \"x\": must match the service account name if specified","reason":"FieldValueInvalid"}],"group":"authentication.k8s.io","kind":"TokenRequest","name":"default"},"message":"TokenRequest.authentication.k8s.io \"default\" is invalid: metadata.name: Invalid value: \"x\": must match the service account name if specified","reason":"Invalid"}`,
		},
		{
			name: "the name is checked before the service account", sa: "nope", body: `{"metadata":{"name":"x"}}`, wantCode: 422,
			wantStatus: `{"code":422,"details":{"causes":[{"field":"metadata.name","message":"Invalid value: \"x\": must match the service account name if specified","reason":"FieldValueInvalid"}],"group":"authentication.k8s.io","kind":"TokenRequest","name":"nope"},"message":"TokenRequest.authentication.k8s.io \"nope\" is invalid: metadata.name: Invalid value: \"x\": must match the service account name if specified","reason":"Invalid"}`,
		},
		{
			name: "another namespace in the body", sa: "default", body: `{"metadata":{"name":"x","namespace":"y"}}`, wantCode: 400,
			wantStatus: `{"code":400,"details":null,"message":"the namespace of the provided object does not match the namespace sent on the request","reason":"BadRequest"}`,
		},
		{
			name: "too short", sa: "default", body: `{"spec":{"expirationSeconds":5}}`, wantCode: 422,
			wantStatus: `{"code":422,"details":{"causes":[{"field":"spec.expirationSeconds","message":"Invalid value: 5: may not specify a duration less than 10 minutes","reason":"FieldValueInvalid"}],"group":"authentication.k8s.io","kind":"TokenRequest"},"message":"TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 5: may not specify a duration less than 10 minutes","reason":"Invalid"}`,
		},
		{
			name: "too long", sa: "default", body: `{"spec":{"expirationSeconds":5000000000}}`, wantCode: 422,
			wantStatus: `{"code":422,"details":{"causes":[{"field":"spec.expirationSeconds","message":"Invalid value: 5000000000: may not specify a duration larger than 2^32 seconds","reason":"FieldValueInvalid"}],"group":"authentication.k8s.io","kind":"TokenRequest"},"message":"TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 5000000000: may not specify a duration larger than 2^32 seconds","reason":"Invalid"}`,
		},
		{
			name: "validated before the binding", sa: "default", body: `{"spec":{"expirationSeconds":5,"boundObjectRef":{"kind":"Foo","name":"x"}}}`, wantCode: 422,
			wantStatus: `{"code":422,"details":{"causes":[{"field":"spec.expirationSeconds","message":"Invalid value: 5: may not specify a duration less than 10 minutes","reason":"FieldValueInvalid"}],"group":"authentication.k8s.io","kind":"TokenRequest"},"message":"TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 5: may not specify a duration less than 10 minutes","reason":"Invalid"}`,
		},
		{
			name: "a kind no token binds to", sa: "default", body: `{"spec":{"boundObjectRef":{"kind":"Foo","name":"x"}}}`, wantCode: 400,
			wantStatus: `{"code":400,"details":null,"message":"cannot bind token to object of type /, Kind=Foo","reason":"BadRequest"}`,
		},
		{
			name: "a group no token binds to", sa: "default", body: `{"spec":{"boundObjectRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"x"}}}`, wantCode: 400,
			wantStatus: `{"code":400,"details":null,"message":"cannot bind token to object of type apps/v1, Kind=Deployment","reason":"BadRequest"}`,
		},
		{
			name: "missing pod", sa: "default", body: `{"spec":{"boundObjectRef":{"kind":"Pod","name":"x"}}}`, wantCode: 404,
			wantStatus: `{"code":404,"details":{"kind":"pods","name":"x"},"message":"pods \"x\" not found","reason":"NotFound"}`,
		},
		{
			name: "missing secret", sa: "default", body: `{"spec":{"boundObjectRef":{"kind":"Secret","name":"x"}}}`, wantCode: 404,
			wantStatus: `{"code":404,"details":{"kind":"secrets","name":"x"},"message":"secrets \"x\" not found","reason":"NotFound"}`,
		},
		{
			name: "missing node", sa: "default", body: `{"spec":{"boundObjectRef":{"kind":"Node","name":"x"}}}`, wantCode: 404,
			wantStatus: `{"code":404,"details":{"kind":"nodes","name":"x"},"message":"nodes \"x\" not found","reason":"NotFound"}`,
		},
		{
			name: "a pod without a name", sa: "default", body: `{"spec":{"boundObjectRef":{"kind":"Pod"}}}`, wantCode: 400,
			wantStatus: `{"code":400,"details":null,"message":"Name parameter required.","reason":"BadRequest"}`,
		},
		{
			name: "a pod running as another service account", sa: "default", body: `{"spec":{"boundObjectRef":{"kind":"Pod","name":"web"}}}`, wantCode: 400,
			wantStatus: `{"code":400,"details":null,"message":"cannot bind token for serviceaccount \"default\" to pod running with different serviceaccount name.","reason":"BadRequest"}`,
		},
		{
			name: "a pod's stale uid", sa: "runner", body: `{"spec":{"boundObjectRef":{"kind":"Pod","name":"web","uid":"abc"}}}`, wantCode: 409,
			wantStatus: `{"code":409,"details":{"kind":"Pod","name":"web"},"message":"Operation cannot be fulfilled on Pod \"web\": the UID in the bound object reference (abc) does not match the UID in record. The object might have been deleted and then recreated","reason":"Conflict"}`,
		},
		{
			name: "a secret's stale uid", sa: "default", body: `{"spec":{"boundObjectRef":{"kind":"Secret","name":"s1","uid":"abc"}}}`, wantCode: 409,
			wantStatus: `{"code":409,"details":{"kind":"Secret","name":"s1"},"message":"Operation cannot be fulfilled on Secret \"s1\": the UID in the bound object reference (abc) does not match the UID in record. The object might have been deleted and then recreated","reason":"Conflict"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.ReplaceAll(tt.body, "UID:Secret/s1", w.uids["Secret/s1"])
			r := w.do("POST", "/api/v1/namespaces/team/serviceaccounts/"+tt.sa+"/token", body)
			if tt.wantCode != 0 {
				if r.code != tt.wantCode {
					t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
				}
				if got := statusOf(r.json(t)); got != tt.wantStatus {
					t.Errorf("got Status\n%s\nwant\n%s", got, tt.wantStatus)
				}
				return
			}
			if r.code != http.StatusCreated {
				t.Fatalf("got %d, want 201: %s", r.code, r.body)
			}
			got := r.json(t)
			if got["apiVersion"] != "authentication.k8s.io/v1" || got["kind"] != "TokenRequest" {
				t.Errorf("got %v %v, want authentication.k8s.io/v1 TokenRequest", got["apiVersion"], got["kind"])
			}
			if m := meta(got); m["name"] != tt.sa || m["namespace"] != "team" {
				t.Errorf("got metadata %v, want the service account's name and namespace", m)
			}
			if tt.wantSpec != "" {
				if spec := mustJSON(got["spec"]); spec != tt.wantSpec {
					t.Errorf("got spec %s, want %s", spec, tt.wantSpec)
				}
			}
			if warning := r.header.Get("Warning"); warning != tt.wantWarning {
				t.Errorf("got Warning %q, want %q", warning, tt.wantWarning)
			}
			status := got["status"].(map[string]any)
			created, _ := time.Parse(time.RFC3339, str(meta(got)["creationTimestamp"]))
			expires, _ := time.Parse(time.RFC3339, str(status["expirationTimestamp"]))
			if life := int64(expires.Sub(created) / time.Second); life != tt.wantLife {
				t.Errorf("got expirationTimestamp %d s after creation, want %d", life, tt.wantLife)
			}
			c := claims(t, str(status["token"]))
			if got, want := mustJSON(c["kubernetes.io"]), mustJSON(withWarnAfter(tt.wantKube(w), c, tt.wantWarnAfter)); got != want {
				t.Errorf("got kubernetes.io claim %s, want %s", got, want)
			}
			if got, want := mustJSON(c["aud"]), mustJSON(got["spec"].(map[string]any)["audiences"]); got != want {
				t.Errorf("got aud %s, want the spec's audiences %s", got, want)
			}
			if c["iss"] != issuer || c["sub"] != "system:serviceaccount:team:"+tt.sa {
				t.Errorf("got iss %v sub %v", c["iss"], c["sub"])
			}
			if life := int64(c["exp"].(float64) - c["iat"].(float64)); life != tt.wantTokenLife {
				t.Errorf("got a token valid %d s, want %d", life, tt.wantTokenLife)
			}
		})
	}
	// Issuing stores nothing.
	if n := listLen(w.srv, "/registry/authentication.k8s.io/"); n != 0 {
		t.Errorf("got %d stored objects under authentication.k8s.io, want 0", n)
	}
}

// withWarnAfter adds to want the warnafter claim, seconds after the
// token's iat, when there is one.
func withWarnAfter(want, claims map[string]any, after int64) map[string]any {
	if after != 0 {
		want["warnafter"] = claims["iat"].(float64) + float64(after)
	}
	return want
}

// TestTokenRequestAuthorization: issuing a token is create on
// serviceaccounts/token, which a user needs to be granted.
func TestTokenRequestAuthorization(t *testing.T) {
	w := newSAWorld(t, nil)
	path := "/api/v1/namespaces/team/serviceaccounts/default/token"
	r := w.do("POST", path, `{}`, as("alice")...)
	want := `{"code":403,"details":{"kind":"serviceaccounts","name":"default"},"message":"serviceaccounts \"default\" is forbidden: User \"alice\" cannot create resource \"serviceaccounts/token\" in API group \"\" in the namespace \"team\"","reason":"Forbidden"}`
	if got := statusOf(r.json(t)); r.code != http.StatusForbidden || got != want {
		t.Fatalf("got %d %s, want 403 %s", r.code, got, want)
	}
	w.must(http.StatusCreated, "POST", rbacAPI+"/namespaces/team/roles", rbacObject("Role", map[string]any{
		"metadata": map[string]any{"name": "token-minter"},
		"rules":    []any{map[string]any{"verbs": []any{"create"}, "apiGroups": []any{""}, "resources": []any{"serviceaccounts/token"}}},
	}))
	binding := roleBinding("team", "alice-mints", "", userSubject("alice"))
	binding["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "token-minter"}
	w.must(http.StatusCreated, "POST", rbacAPI+"/namespaces/team/rolebindings", binding)
	w.must(http.StatusCreated, "POST", path, `{}`, as("alice")...)
}

// TestServiceAccountTokenAuthentication: a token authenticates as its
// service account until it expires or what it names is gone; tokens not
// meant for the API, tampered, or from another issuer are refused with
// 401.
func TestServiceAccountTokenAuthentication(t *testing.T) {
	w := newSAWorld(t, nil)
	whoami := func(token string) (int, map[string]any) {
		r := w.as(token).do("POST", selfSubjectReviews, selfSubjectReview)
		if r.code != http.StatusCreated {
			return r.code, nil
		}
		return r.code, r.json(t)["status"].(map[string]any)["userInfo"].(map[string]any)
	}

	t.Run("whoami", func(t *testing.T) {
		token := w.token("runner", map[string]any{"boundObjectRef": map[string]any{"kind": "Pod", "name": "web"}})
		code, got := whoami(token)
		want := map[string]any{
			"username": "system:serviceaccount:team:runner",
			"uid":      w.uids["ServiceAccount/runner"],
			"groups":   []any{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"},
			"extra": map[string]any{
				"authentication.kubernetes.io/credential-id": []any{"JTI=" + str(claims(t, token)["jti"])},
				"authentication.kubernetes.io/node-name":     []any{"n1"},
				"authentication.kubernetes.io/node-uid":      []any{w.uids["Node/n1"]},
				"authentication.kubernetes.io/pod-name":      []any{"web"},
				"authentication.kubernetes.io/pod-uid":       []any{w.uids["Pod/web"]},
			},
		}
		if code != http.StatusCreated || !reflect.DeepEqual(got, want) {
			t.Errorf("got %d %s, want 201 %s", code, mustJSON(got), mustJSON(want))
		}
	})

	// Each case makes a token, and may change the world after it was
	// issued; the token must then be refused.
	tests := []struct {
		name  string
		token func(t *testing.T) string
	}{
		{"expired", func(t *testing.T) string {
			token := w.token("default", nil)
			// Past exp and the minute of leeway.
			w.clock.Add(time.Hour + time.Minute + time.Second)
			t.Cleanup(func() { w.clock.Add(-(time.Hour + time.Minute + time.Second)) })
			return token
		}},
		{"meant for another audience", func(t *testing.T) string {
			return w.token("default", map[string]any{"audiences": []any{"vault"}})
		}},
		{"tampered", func(t *testing.T) string {
			token := w.token("default", nil)
			parts := strings.Split(token, ".")
			payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
			payload = []byte(strings.Replace(string(payload), `"name":"default"`, `"name":"runner"`, 1))
			return parts[0] + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + parts[2]
		}},
		{"from another issuer", func(t *testing.T) string {
			c, err := serviceaccount.NewClaims(serviceaccount.TokenSpec{
				Issuer: "https://elsewhere", Namespace: "team", Audiences: []string{issuer},
				ServiceAccount:    serviceaccount.Ref{Name: "default", UID: w.uids["ServiceAccount/default"]},
				ExpirationSeconds: 3600,
			}, w.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			token, err := w.key.Issue(c)
			if err != nil {
				t.Fatal(err)
			}
			return token
		}},
		{"signed by another key", func(t *testing.T) string {
			other, err := serviceaccount.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			c, err := serviceaccount.NewClaims(serviceaccount.TokenSpec{
				Issuer: issuer, Namespace: "team", Audiences: []string{issuer},
				ServiceAccount:    serviceaccount.Ref{Name: "default", UID: w.uids["ServiceAccount/default"]},
				ExpirationSeconds: 3600,
			}, w.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			token, err := other.Issue(c)
			if err != nil {
				t.Fatal(err)
			}
			return token
		}},
		{"its service account deleted", func(t *testing.T) string {
			w.create("ServiceAccount", "/api/v1/namespaces/team/serviceaccounts", object("v1", "ServiceAccount", "doomed", nil))
			token := w.token("doomed", nil)
			w.mustAuthenticate(token)
			w.must(http.StatusOK, "DELETE", "/api/v1/namespaces/team/serviceaccounts/doomed", nil)
			w.caught()
			return token
		}},
		{"its service account replaced", func(t *testing.T) string {
			w.create("ServiceAccount", "/api/v1/namespaces/team/serviceaccounts", object("v1", "ServiceAccount", "reborn", nil))
			token := w.token("reborn", nil)
			w.must(http.StatusOK, "DELETE", "/api/v1/namespaces/team/serviceaccounts/reborn", nil)
			w.create("ServiceAccount", "/api/v1/namespaces/team/serviceaccounts", object("v1", "ServiceAccount", "reborn", nil))
			w.caught()
			return token
		}},
		{"its pod deleted", func(t *testing.T) string {
			w.create("Pod", "/api/v1/namespaces/team/pods", podAs("short-lived", "runner", ""))
			token := w.token("runner", map[string]any{"boundObjectRef": map[string]any{"kind": "Pod", "name": "short-lived"}})
			w.mustAuthenticate(token)
			// An unscheduled pod goes at once; the token stops working
			// as soon as the watch cache has the delete, where
			// kube-apiserver's token cache lets it work for up to 10 s.
			w.must(http.StatusOK, "DELETE", "/api/v1/namespaces/team/pods/short-lived", nil)
			w.caught()
			return token
		}},
		{"its secret deleted", func(t *testing.T) string {
			w.create("Secret", "/api/v1/namespaces/team/secrets", object("v1", "Secret", "key-holder", nil))
			token := w.token("default", map[string]any{"boundObjectRef": map[string]any{"kind": "Secret", "name": "key-holder"}})
			w.mustAuthenticate(token)
			w.must(http.StatusOK, "DELETE", "/api/v1/namespaces/team/secrets/key-holder", nil)
			w.caught()
			return token
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := tt.token(t)
			r := w.as(token).do("GET", "/api/v1/namespaces/team/configmaps", nil)
			want := `{"code":401,"details":null,"message":"Unauthorized","reason":"Unauthorized"}`
			if got := statusOf(r.json(t)); r.code != http.StatusUnauthorized || got != want {
				t.Errorf("got %d %s, want 401 %s", r.code, got, want)
			}
		})
	}

	t.Run("a pod's token lasts through its grace period and a minute", func(t *testing.T) {
		p := podAs("graceful", "runner", "n1")
		w.create("Pod", "/api/v1/namespaces/team/pods", p)
		token := w.token("runner", map[string]any{"boundObjectRef": map[string]any{"kind": "Pod", "name": "graceful"}})
		w.must(http.StatusOK, "DELETE", "/api/v1/namespaces/team/pods/graceful", `{"gracePeriodSeconds":30}`)
		w.mustAuthenticate(token)
		w.clock.Add(30*time.Second + time.Minute + time.Second)
		defer w.clock.Add(-(30*time.Second + time.Minute + time.Second))
		if code, _ := whoami(token); code != http.StatusUnauthorized {
			t.Errorf("a minute past the end of the grace period: got %d, want 401", code)
		}
	})
}

// caught returns once the watch cache, which token checks read, holds
// every write made so far: a list without a resourceVersion is a
// consistent read, answered only then.
func (w *saWorld) caught() {
	w.t.Helper()
	w.must(http.StatusOK, "GET", "/api/v1/namespaces/team/serviceaccounts", nil)
}

// mustAuthenticate fails the test unless token authenticates.
func (w *saWorld) mustAuthenticate(token string) {
	w.t.Helper()
	w.as(token).must(http.StatusCreated, "POST", selfSubjectReviews, selfSubjectReview)
}

// TestServiceAccountTokenRBAC: a token's service account gets what is
// bound to it, by name or through its groups, and kube's 403 otherwise.
func TestServiceAccountTokenRBAC(t *testing.T) {
	w := newSAWorld(t, nil)
	sa := w.as(w.token("default", nil))
	r := sa.do("GET", "/api/v1/namespaces/team/configmaps", nil)
	want := `{"code":403,"details":{"kind":"configmaps"},"message":"configmaps is forbidden: User \"system:serviceaccount:team:default\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"team\"","reason":"Forbidden"}`
	if got := statusOf(r.json(t)); r.code != http.StatusForbidden || got != want {
		t.Fatalf("got %d %s, want 403 %s", r.code, got, want)
	}
	for _, resource := range []string{"configmaps", "pods"} {
		w.must(http.StatusCreated, "POST", rbacAPI+"/clusterroles", rbacObject("ClusterRole", map[string]any{
			"metadata": map[string]any{"name": resource + "-lister"},
			"rules":    []any{map[string]any{"verbs": []any{"list"}, "apiGroups": []any{""}, "resources": []any{resource}}},
		}))
	}
	w.must(http.StatusCreated, "POST", rbacAPI+"/namespaces/team/rolebindings", roleBinding("team", "by-name", "configmaps-lister",
		map[string]any{"kind": "ServiceAccount", "name": "default", "namespace": "team"}))
	w.must(http.StatusCreated, "POST", rbacAPI+"/namespaces/team/rolebindings", roleBinding("team", "by-group", "pods-lister",
		map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:serviceaccounts:team"}))
	sa.must(http.StatusOK, "GET", "/api/v1/namespaces/team/configmaps", nil)
	sa.must(http.StatusOK, "GET", "/api/v1/namespaces/team/pods", nil)
	if r := sa.do("GET", "/api/v1/namespaces/default/configmaps", nil); r.code != http.StatusForbidden {
		t.Errorf("another namespace: got %d, want 403", r.code)
	}
}

// TestTokenReview checks answers for every kind of token the server
// knows, as kube-apiserver answers them (compared against it).
func TestTokenReview(t *testing.T) {
	w := newSAWorld(t, nil)
	podToken := w.token("runner", map[string]any{"boundObjectRef": map[string]any{"kind": "Pod", "name": "web"}})
	plain := w.token("default", nil)
	tampered := plain[:strings.LastIndex(plain, ".")+1] + "AAAA" + plain[strings.LastIndex(plain, ".")+5:]
	vault := w.token("default", map[string]any{"audiences": []any{"vault"}})
	podUser := func() map[string]any {
		return map[string]any{
			"username": "system:serviceaccount:team:runner", "uid": w.uids["ServiceAccount/runner"],
			"groups": []any{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"},
			"extra": map[string]any{
				"authentication.kubernetes.io/credential-id": []any{"JTI=" + str(claims(t, podToken)["jti"])},
				"authentication.kubernetes.io/node-name":     []any{"n1"},
				"authentication.kubernetes.io/node-uid":      []any{w.uids["Node/n1"]},
				"authentication.kubernetes.io/pod-name":      []any{"web"},
				"authentication.kubernetes.io/pod-uid":       []any{w.uids["Pod/web"]},
			},
		}
	}
	admin := map[string]any{"username": credentials.AdminUser.Username, "groups": []any{"system:masters", "system:authenticated"}}
	tests := []struct {
		name       string
		token      string
		audiences  []any
		wantStatus func() map[string]any
	}{
		{"a pod's token", podToken, nil, func() map[string]any {
			return map[string]any{"authenticated": true, "user": podUser(), "audiences": []any{issuer}}
		}},
		{"for the audiences it is meant for", podToken, []any{"vault", issuer}, func() map[string]any {
			return map[string]any{"authenticated": true, "user": podUser(), "audiences": []any{issuer}}
		}},
		{"a token for another audience, asked for it", vault, []any{"vault"}, func() map[string]any {
			return map[string]any{"authenticated": true, "audiences": []any{"vault"}, "user": map[string]any{
				"username": "system:serviceaccount:team:default", "uid": w.uids["ServiceAccount/default"],
				"groups": []any{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"},
				"extra":  map[string]any{"authentication.kubernetes.io/credential-id": []any{"JTI=" + str(claims(t, vault)["jti"])}},
			}}
		}},
		{"not for the audiences asked for", podToken, []any{"vault"}, func() map[string]any {
			return map[string]any{"user": map[string]any{}, "error": `[invalid bearer token, token audiences ["` + issuer + `"] is invalid for the target audiences ["vault"]]`}
		}},
		{"a token for another audience", vault, nil, func() map[string]any {
			return map[string]any{"user": map[string]any{}, "error": `[invalid bearer token, token audiences ["vault"] is invalid for the target audiences ["` + issuer + `"]]`}
		}},
		{"tampered", tampered, nil, func() map[string]any {
			return map[string]any{"user": map[string]any{}, "error": "[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]"}
		}},
		{"the admin token", w.srv.Credentials.AdminToken, nil, func() map[string]any {
			return map[string]any{"authenticated": true, "user": admin, "audiences": []any{issuer}}
		}},
		{"the admin token among the API audiences", w.srv.Credentials.AdminToken, []any{"vault", issuer}, func() map[string]any {
			return map[string]any{"authenticated": true, "user": admin, "audiences": []any{issuer}}
		}},
		{"the admin token for other audiences", w.srv.Credentials.AdminToken, []any{"vault"}, func() map[string]any {
			return map[string]any{"user": map[string]any{}, "error": "invalid bearer token"}
		}},
		{"garbage", "garbage", nil, func() map[string]any {
			return map[string]any{"user": map[string]any{}, "error": "invalid bearer token"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := map[string]any{"token": tt.token}
			if tt.audiences != nil {
				spec["audiences"] = tt.audiences
			}
			got := w.must(http.StatusCreated, "POST", tokenReviews, map[string]any{"spec": spec})
			if got["kind"] != "TokenReview" || mustJSON(got["spec"]) != mustJSON(spec) {
				t.Errorf("got kind %v spec %s, want the review as sent", got["kind"], mustJSON(got["spec"]))
			}
			m := meta(got)
			if ts, ok := m["creationTimestamp"]; !ok || ts != nil {
				t.Errorf("got creationTimestamp %v, want null", ts)
			}
			if fields := mustJSON(m["managedFields"].([]any)[0].(map[string]any)["fieldsV1"]); fields != mustJSON(map[string]any{"f:spec": specFields(spec)}) {
				t.Errorf("got managed fields %s, want the spec's", fields)
			}
			if got, want := mustJSON(got["status"]), mustJSON(tt.wantStatus()); got != want {
				t.Errorf("got status\n%s\nwant\n%s", got, want)
			}
		})
	}

	t.Run("the loopback token", func(t *testing.T) {
		got := w.must(http.StatusCreated, "POST", tokenReviews, map[string]any{"spec": map[string]any{"token": w.srv.Credentials.LoopbackToken}})
		user := got["status"].(map[string]any)["user"].(map[string]any)
		if user["username"] != "system:apiserver" || user["uid"] == "" {
			t.Errorf("got %v, want system:apiserver with its uid", user)
		}
	})
	t.Run("without a token", func(t *testing.T) {
		r := w.do("POST", tokenReviews, `{"spec":{}}`)
		want := `{"code":400,"details":null,"message":"token is required for TokenReview in authentication","reason":"BadRequest"}`
		if got := statusOf(r.json(t)); r.code != http.StatusBadRequest || got != want {
			t.Errorf("got %d %s, want 400 %s", r.code, got, want)
		}
	})
	t.Run("a deleted pod's token", func(t *testing.T) {
		w.must(http.StatusOK, "DELETE", "/api/v1/namespaces/team/pods/stray", nil)
		token := w.token("default", map[string]any{"boundObjectRef": map[string]any{"kind": "Pod", "name": "default-pod"}})
		w.must(http.StatusOK, "DELETE", "/api/v1/namespaces/team/pods/default-pod", nil)
		w.caught()
		got := w.must(http.StatusCreated, "POST", tokenReviews, map[string]any{"spec": map[string]any{"token": token}})
		want := `{"error":"[invalid bearer token, service account token has been invalidated]","user":{}}`
		if got := mustJSON(got["status"]); got != want {
			t.Errorf("got status %s, want %s", got, want)
		}
	})
	t.Run("nothing is stored", func(t *testing.T) {
		if n := listLen(w.srv, "/registry/authentication.k8s.io/"); n != 0 {
			t.Errorf("got %d stored objects under authentication.k8s.io, want 0", n)
		}
	})
}

// specFields are the managed fields of a TokenReview's spec.
func specFields(spec map[string]any) map[string]any {
	out := map[string]any{}
	for k := range spec {
		out["f:"+k] = map[string]any{}
	}
	return out
}

// TestIssuerDiscovery checks the OIDC discovery documents: kube's
// headers, the server's key, served to service accounts (the default
// policy binds them) and not to users without a grant.
func TestIssuerDiscovery(t *testing.T) {
	w := newSAWorld(t, nil)
	pub := w.key.Public()
	tests := []struct {
		path            string
		wantContentType string
		wantBody        string
	}{
		{"/.well-known/openid-configuration", "application/json",
			`{"issuer":"` + issuer + `","jwks_uri":"https://` + strings.TrimPrefix(w.srv.URL, "https://") + `/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}`},
		{"/.well-known/openid-configuration/", "application/json", ""},
		{"/openid/v1/jwks", "application/jwk-set+json", string(serviceaccount.JWKS([]serviceaccount.PublicKey{pub}))},
		{"/openid/v1/jwks/", "application/jwk-set+json", string(serviceaccount.JWKS([]serviceaccount.PublicKey{pub}))},
	}
	sa := w.as(w.token("default", nil))
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := sa.do("GET", tt.path, nil)
			if r.code != http.StatusOK {
				t.Fatalf("got %d, want 200: %s", r.code, r.body)
			}
			if got := r.header.Get("Content-Type"); got != tt.wantContentType {
				t.Errorf("got Content-Type %q, want %q", got, tt.wantContentType)
			}
			if got := r.header.Get("Cache-Control"); got != "public, max-age=3600" {
				t.Errorf("got Cache-Control %q, want public, max-age=3600", got)
			}
			if tt.wantBody != "" && string(r.body) != tt.wantBody {
				t.Errorf("got\n%s\nwant\n%s", r.body, tt.wantBody)
			}
		})
	}
	if !strings.Contains(string(sa.do("GET", "/openid/v1/jwks", nil).body), `"kid":"`+pub.ID()+`"`) {
		t.Errorf("the JWKS does not list the signing key %s", pub.ID())
	}
	t.Run("a user without a grant", func(t *testing.T) {
		r := w.do("GET", "/openid/v1/jwks", nil, as("alice")...)
		want := `{"code":403,"details":{},"message":"forbidden: User \"alice\" cannot get path \"/openid/v1/jwks\"","reason":"Forbidden"}`
		if got := statusOf(r.json(t)); r.code != http.StatusForbidden || got != want {
			t.Errorf("got %d %s, want 403 %s", r.code, got, want)
		}
	})
	t.Run("POST", func(t *testing.T) {
		if r := w.do("POST", "/openid/v1/jwks", `{}`); r.code != http.StatusMethodNotAllowed {
			t.Errorf("got %d, want 405", r.code)
		}
	})
	t.Run("an issuer that is not https", func(t *testing.T) {
		plain := newSAWorld(t, func(cfg *apiserver.Config) { cfg.ServiceAccounts.Issuer = "kubernetes/serviceaccount" })
		if r := plain.do("GET", "/openid/v1/jwks", nil); r.code != http.StatusNotFound {
			t.Errorf("got %d, want 404", r.code)
		}
		// Its tokens still work.
		plain.mustAuthenticate(plain.token("default", nil))
	})
}

// TestServiceAccountTokenClientGo: client-go asks for a token through its
// typed client and then works with it as the service account.
func TestServiceAccountTokenClientGo(t *testing.T) {
	w := newSAWorld(t, nil)
	w.must(http.StatusCreated, "POST", "/api/v1/namespaces/team/configmaps", configMap("team", "settings", map[string]any{"a": "b"}))
	w.must(http.StatusCreated, "POST", rbacAPI+"/clusterroles", rbacObject("ClusterRole", map[string]any{
		"metadata": map[string]any{"name": "cm-reader"},
		"rules":    []any{map[string]any{"verbs": []any{"get", "list"}, "apiGroups": []any{""}, "resources": []any{"configmaps"}}},
	}))
	w.must(http.StatusCreated, "POST", rbacAPI+"/namespaces/team/rolebindings", roleBinding("team", "runner-cm", "cm-reader",
		map[string]any{"kind": "ServiceAccount", "name": "runner", "namespace": "team"}))

	for _, contentType := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
		t.Run(contentType, func(t *testing.T) {
			cfg := rest.CopyConfig(w.srv.Config)
			cfg.ContentType = contentType
			admin := kubernetes.NewForConfigOrDie(cfg)
			expiration := int64(1800)
			tr, err := admin.CoreV1().ServiceAccounts("team").CreateToken(t.Context(), "runner", &authenticationv1.TokenRequest{
				Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiration},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.Status.ExpirationTimestamp.Sub(tr.CreationTimestamp.Time); got != 30*time.Minute {
				t.Errorf("got a token for %v, want 30m", got)
			}
			saCfg := rest.AnonymousClientConfig(cfg)
			saCfg.BearerToken = tr.Status.Token
			sa := kubernetes.NewForConfigOrDie(saCfg)
			list, err := sa.CoreV1().ConfigMaps("team").List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Items) != 1 || list.Items[0].Name != "settings" {
				t.Errorf("got %v, want the settings ConfigMap", list.Items)
			}
			_, err = sa.CoreV1().Secrets("team").List(t.Context(), metav1.ListOptions{})
			if want := `secrets is forbidden: User "system:serviceaccount:team:runner" cannot list resource "secrets" in API group "" in the namespace "team"`; err == nil || err.Error() != want {
				t.Errorf("listing secrets: got %v, want %s", err, want)
			}
			review, err := admin.AuthenticationV1().TokenReviews().Create(t.Context(), &authenticationv1.TokenReview{
				Spec: authenticationv1.TokenReviewSpec{Token: tr.Status.Token},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !review.Status.Authenticated || review.Status.User.Username != "system:serviceaccount:team:runner" {
				t.Errorf("got review status %+v, want runner authenticated", review.Status)
			}
		})
	}
}

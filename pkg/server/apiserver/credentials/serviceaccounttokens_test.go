package credentials

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
)

const testIssuer = "https://kubernetes.default.svc.cluster.local"

// objects is a Getter over a map, "kind/namespace/name" -> object, that
// a test changes as the server's cache would change.
type objects struct {
	mu sync.Mutex
	m  map[string]serviceaccount.Object
}

func (o *objects) get(key string) (serviceaccount.Object, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	obj, ok := o.m[key]
	return obj, ok, nil
}

func (o *objects) set(key string, obj *serviceaccount.Object) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if obj == nil {
		delete(o.m, key)
		return
	}
	o.m[key] = *obj
}

func (o *objects) ServiceAccount(ns, name string) (serviceaccount.Object, bool, error) {
	return o.get("sa/" + ns + "/" + name)
}
func (o *objects) Pod(ns, name string) (serviceaccount.Object, bool, error) {
	return o.get("pod/" + ns + "/" + name)
}
func (o *objects) Secret(ns, name string) (serviceaccount.Object, bool, error) {
	return o.get("secret/" + ns + "/" + name)
}
func (o *objects) Node(name string) (serviceaccount.Object, bool, error) {
	return o.get("node//" + name)
}

type tokenFixture struct {
	key     *serviceaccount.Key
	tokens  *ServiceAccountTokens
	objects *objects
	now     time.Time
}

func newTokenFixture(t testing.TB) *tokenFixture {
	t.Helper()
	key, err := serviceaccount.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	f := &tokenFixture{key: key, now: time.Unix(1_800_000_000, 0), objects: &objects{m: map[string]serviceaccount.Object{
		"sa/team/app": {UID: "sa-uid"}, "pod/team/web": {UID: "pod-uid"},
	}}}
	f.tokens = NewServiceAccountTokens(serviceaccount.NewKeySet(key.Public()), []string{testIssuer}, []string{testIssuer}, f.objects, func() time.Time { return f.now })
	return f
}

// issue signs a token for team/app, for audiences, valid an hour from
// the fixture's now, bound to pod when it is set.
func (f *tokenFixture) issue(t testing.TB, audiences []string, pod *serviceaccount.Ref) string {
	t.Helper()
	c, err := serviceaccount.NewClaims(serviceaccount.TokenSpec{
		Issuer: testIssuer, Namespace: "team", ServiceAccount: serviceaccount.Ref{Name: "app", UID: "sa-uid"},
		Pod: pod, Audiences: audiences, ExpirationSeconds: 3600,
	}, f.now)
	if err != nil {
		t.Fatal(err)
	}
	token, err := f.key.Issue(c)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

func TestServiceAccountTokens(t *testing.T) {
	web := &serviceaccount.Ref{Name: "web", UID: "pod-uid"}
	tests := []struct {
		name string
		// token is issued, presented once, then change runs and it is
		// presented again with audiences.
		token     func(t testing.TB, f *tokenFixture) string
		change    func(f *tokenFixture)
		audiences []string
		wantOK    bool
		wantErr   error
		wantAuds  []string
	}{
		{
			name:   "valid, for the API audiences",
			token:  func(t testing.TB, f *tokenFixture) string { return f.issue(t, []string{testIssuer}, web) },
			wantOK: true, wantAuds: []string{testIssuer},
		},
		{
			name:      "valid, for audiences asked for",
			token:     func(t testing.TB, f *tokenFixture) string { return f.issue(t, []string{"vault"}, nil) },
			audiences: []string{"other", "vault"},
			wantOK:    true, wantAuds: []string{"vault"},
		},
		{
			name:    "for another audience",
			token:   func(t testing.TB, f *tokenFixture) string { return f.issue(t, []string{"vault"}, nil) },
			wantErr: serviceaccount.ErrAudience,
		},
		{
			name:  "not a token of this server",
			token: func(testing.TB, *tokenFixture) string { return "0123456789abcdef" },
		},
		{
			name:    "its pod deleted after it was cached",
			token:   func(t testing.TB, f *tokenFixture) string { return f.issue(t, []string{testIssuer}, web) },
			change:  func(f *tokenFixture) { f.objects.set("pod/team/web", nil) },
			wantErr: serviceaccount.ErrInvalidated,
		},
		{
			name:    "its service account replaced after it was cached",
			token:   func(t testing.TB, f *tokenFixture) string { return f.issue(t, []string{testIssuer}, nil) },
			change:  func(f *tokenFixture) { f.objects.set("sa/team/app", &serviceaccount.Object{UID: "new-uid"}) },
			wantErr: serviceaccount.ErrInvalidated,
		},
		{
			name:    "expired while cached",
			token:   func(t testing.TB, f *tokenFixture) string { return f.issue(t, []string{testIssuer}, nil) },
			change:  func(f *tokenFixture) { f.now = f.now.Add(time.Hour + serviceaccount.Leeway + time.Second) },
			wantErr: serviceaccount.ErrExpired,
		},
		{
			name:   "past the cache's TTL",
			token:  func(t testing.TB, f *tokenFixture) string { return f.issue(t, []string{testIssuer}, nil) },
			change: func(f *tokenFixture) { f.now = f.now.Add(tokenCacheTTL + time.Second) },
			wantOK: true, wantAuds: []string{testIssuer},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newTokenFixture(t)
			token := tt.token(t, f)
			if tt.change != nil {
				if _, _, ok, err := f.tokens.AuthenticateToken(token, nil); !ok || err != nil {
					t.Fatalf("before the change: got %v, %v; want the token accepted", ok, err)
				}
				tt.change(f)
			}
			u, auds, ok, err := f.tokens.AuthenticateToken(token, tt.audiences)
			if ok != tt.wantOK || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("got %v, %v; want %v, %v", ok, err, tt.wantOK, tt.wantErr)
			}
			if !slices.Equal(auds, tt.wantAuds) {
				t.Errorf("got audiences %v, want %v", auds, tt.wantAuds)
			}
			if ok && u.Username != "system:serviceaccount:team:app" {
				t.Errorf("got user %q, want system:serviceaccount:team:app", u.Username)
			}
		})
	}
}

// BenchmarkServiceAccountToken measures a request's token check: the
// signature's is skipped while the token is cached, the bound objects'
// never is.
func BenchmarkServiceAccountToken(b *testing.B) {
	f := newTokenFixture(b)
	token := f.issue(b, []string{testIssuer}, &serviceaccount.Ref{Name: "web", UID: "pod-uid"})
	for _, cached := range []bool{true, false} {
		name := "uncached"
		if cached {
			name = "cached"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if !cached {
					f.tokens.cache = tokenCache{}
				}
				if _, _, ok, err := f.tokens.AuthenticateToken(token, nil); !ok {
					b.Fatal(err)
				}
			}
		})
	}
}

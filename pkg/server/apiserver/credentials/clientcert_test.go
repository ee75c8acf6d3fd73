package credentials

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// mustGenerate returns fresh in-memory credentials.
func mustGenerate(t *testing.T) *Credentials {
	t.Helper()
	c, err := Generate(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mustIssue signs a client certificate with c's CA.
func mustIssue(t *testing.T, c *Credentials, opts ClientCertOptions) *x509.Certificate {
	t.Helper()
	cc, err := c.CA().IssueClientCert(opts)
	if err != nil {
		t.Fatal(err)
	}
	return cc.Cert
}

// mustSign signs tmpl with c's CA, for certificates IssueClientCert would
// not make.
func mustSign(t *testing.T, c *Credentials, tmpl *x509.Certificate) *x509.Certificate {
	t.Helper()
	if tmpl.NotBefore.IsZero() {
		tmpl.NotBefore = time.Now().Add(-time.Hour)
		tmpl.NotAfter = time.Now().Add(time.Hour)
	}
	kp, err := sign(tmpl, c.ca)
	if err != nil {
		t.Fatal(err)
	}
	return kp.cert
}

// withPeer returns a request that arrived over TLS with certs as the
// client's chain, and with the given Authorization header when not empty.
func withPeer(authorization string, certs ...*x509.Certificate) *http.Request {
	r := httptest.NewRequest("GET", "https://127.0.0.1/api", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: certs}
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	return r
}

func credentialID(c *x509.Certificate) string {
	sum := sha256.Sum256(c.Raw)
	return "X509SHA256=" + hex.EncodeToString(sum[:])
}

func TestIdentifyClientCert(t *testing.T) {
	creds := mustGenerate(t)
	other := mustGenerate(t)
	now := time.Now()
	alice := mustIssue(t, creds, ClientCertOptions{User: "alice", Groups: []string{"dev", "ops"}})
	clientAuth := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	uidName := func(values ...any) pkix.Name {
		n := pkix.Name{CommonName: "dave", Organization: []string{"dev"}}
		for _, v := range values {
			n.ExtraNames = append(n.ExtraNames, pkix.AttributeTypeAndValue{Type: uidOID, Value: v})
		}
		return n
	}
	tests := []struct {
		name       string
		cert       *x509.Certificate
		header     string
		wantUser   string // "" when refused
		wantUID    string
		wantGroups []string
	}{
		{
			name: "signed by the CA", cert: alice,
			wantUser: "alice", wantGroups: []string{"dev", "ops", "system:authenticated"},
		},
		{
			name:     "system:masters is an admin",
			cert:     mustIssue(t, creds, ClientCertOptions{User: "bob", Groups: []string{"system:masters"}}),
			wantUser: "bob", wantGroups: []string{"system:masters", "system:authenticated"},
		},
		{
			name:     "no groups",
			cert:     mustIssue(t, creds, ClientCertOptions{User: "carol"}),
			wantUser: "carol", wantGroups: []string{"system:authenticated"},
		},
		{
			name:     "system:authenticated is not repeated",
			cert:     mustIssue(t, creds, ClientCertOptions{User: "dave", Groups: []string{"dev", "system:authenticated", "dev"}}),
			wantUser: "dave", wantGroups: []string{"dev", "system:authenticated", "dev"},
		},
		{
			name:     "system:unauthenticated gets no system:authenticated",
			cert:     mustIssue(t, creds, ClientCertOptions{User: "erin", Groups: []string{"system:unauthenticated"}}),
			wantUser: "erin", wantGroups: []string{"system:unauthenticated"},
		},
		{
			name:     "system:anonymous gets no system:authenticated",
			cert:     mustIssue(t, creds, ClientCertOptions{User: "system:anonymous", Groups: []string{"dev"}}),
			wantUser: "system:anonymous", wantGroups: []string{"dev"},
		},
		{
			name:     "UID attribute",
			cert:     mustSign(t, creds, &x509.Certificate{Subject: uidName("uid-1"), ExtKeyUsage: clientAuth}),
			wantUser: "dave", wantUID: "uid-1", wantGroups: []string{"dev", "system:authenticated"},
		},
		{
			name: "two UIDs",
			cert: mustSign(t, creds, &x509.Certificate{Subject: uidName("uid-1", "uid-2"), ExtKeyUsage: clientAuth}),
		},
		{
			name: "empty UID",
			cert: mustSign(t, creds, &x509.Certificate{Subject: uidName(""), ExtKeyUsage: clientAuth}),
		},
		{
			name: "expired",
			cert: mustIssue(t, creds, ClientCertOptions{User: "alice", Now: now.Add(-48 * time.Hour), Validity: 24 * time.Hour}),
		},
		{
			name: "not yet valid",
			cert: mustSign(t, creds, &x509.Certificate{
				Subject: pkix.Name{CommonName: "alice"}, ExtKeyUsage: clientAuth,
				NotBefore: now.Add(time.Hour), NotAfter: now.Add(2 * time.Hour),
			}),
		},
		{
			name: "signed by another CA",
			cert: mustIssue(t, other, ClientCertOptions{User: "mallory", Groups: []string{"system:masters"}}),
		},
		{
			name: "server auth only",
			cert: mustSign(t, creds, &x509.Certificate{Subject: pkix.Name{CommonName: "alice"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}),
		},
		{
			name: "the serving certificate", cert: creds.Serving.Leaf,
		},
		{
			// Go's verifier, and so kube's, reads no extended key usage
			// as any usage.
			name:     "no extended key usage",
			cert:     mustSign(t, creds, &x509.Certificate{Subject: pkix.Name{CommonName: "alice"}}),
			wantUser: "alice", wantGroups: []string{"system:authenticated"},
		},
		{
			name: "empty common name",
			cert: mustSign(t, creds, &x509.Certificate{Subject: pkix.Name{Organization: []string{"system:masters"}}, ExtKeyUsage: clientAuth}),
		},
		{
			name: "certificate wins over the admin token", cert: alice, header: "Bearer " + creds.AdminToken,
			wantUser: "alice", wantGroups: []string{"dev", "ops", "system:authenticated"},
		},
		{
			name:     "refused certificate, admin token",
			cert:     mustIssue(t, other, ClientCertOptions{User: "mallory"}),
			header:   "Bearer " + creds.AdminToken,
			wantUser: AdminUser.Username, wantGroups: AdminUser.Groups,
		},
		{
			name:   "refused certificate, wrong token",
			cert:   mustIssue(t, other, ClientCertOptions{User: "mallory"}),
			header: "Bearer " + creds.AdminToken[1:] + "x",
		},
	}
	a := creds.Authenticator()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := withPeer(tc.header, tc.cert)
			got, ok := a.Identify(r)
			if ok != (tc.wantUser != "") || got.Username != tc.wantUser {
				t.Fatalf("Identify = %q, %v; want %q", got.Username, ok, tc.wantUser)
			}
			if a.Authenticate(r) != ok {
				t.Errorf("Authenticate = %v, want %v as Identify", !ok, ok)
			}
			if !ok {
				return
			}
			if got.UID != tc.wantUID {
				t.Errorf("UID = %q, want %q", got.UID, tc.wantUID)
			}
			if !slices.Equal(got.Groups, tc.wantGroups) {
				t.Errorf("Groups = %q, want %q", got.Groups, tc.wantGroups)
			}
			if tc.wantUser == AdminUser.Username {
				return
			}
			want := authenticationv1.ExtraValue{credentialID(tc.cert)}
			if extra := got.Extra[CredentialIDKey]; !slices.Equal(extra, want) {
				t.Errorf("Extra[%s] = %q, want %q", CredentialIDKey, extra, want)
			}
		})
	}
}

func TestIdentifyClientCertNeedsClientCA(t *testing.T) {
	creds := mustGenerate(t)
	alice := mustIssue(t, creds, ClientCertOptions{User: "alice"})
	tests := []struct {
		name string
		a    *Authenticator
		r    *http.Request
		want bool
	}{
		{"credentials' authenticator", creds.Authenticator(), withPeer("", alice), true},
		{"token-only authenticator", NewAuthenticator(creds.AdminToken), withPeer("", alice), false},
		{"nil pool", creds.Authenticator().WithClientCA(nil), withPeer("", alice), false},
		{"plain HTTP", creds.Authenticator(), httptest.NewRequest("GET", "/api", nil), false},
		{"TLS without a certificate", creds.Authenticator(), withPeer(""), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Authenticate(tc.r); got != tc.want {
				t.Errorf("Authenticate = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestIssueClientCert(t *testing.T) {
	creds := mustGenerate(t)
	ca := creds.CA()
	now := time.Now()
	cc, err := ca.IssueClientCert(ClientCertOptions{User: "alice", Groups: []string{"system:masters", "dev"}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	// Certificates hold whole seconds.
	if got, want := cc.Cert.NotAfter, now.Add(DefaultClientCertValidity).Truncate(time.Second); !got.Equal(want) {
		t.Errorf("NotAfter %v, want %v", got, want)
	}
	if got, want := cc.Cert.Subject.Organization, []string{"system:masters", "dev"}; !slices.Equal(got, want) {
		t.Errorf("Organization %q, want %q", got, want)
	}
	if got, want := cc.Cert.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}; !slices.Equal(got, want) {
		t.Errorf("ExtKeyUsage %v, want %v", got, want)
	}
	if cc.Cert.IsCA {
		t.Error("client certificate is a CA")
	}
	if _, err := tls.X509KeyPair(cc.CertPEM, cc.KeyPEM); err != nil {
		t.Errorf("certificate and key do not pair: %v", err)
	}

	tests := []struct {
		name string
		opts ClientCertOptions
		want error
	}{
		{"no user", ClientCertOptions{Groups: []string{"dev"}}, ErrNoUser},
		{"outlives the CA", ClientCertOptions{User: "alice", Validity: 20 * 365 * 24 * time.Hour}, ErrOutlivesCA},
		{"negative validity", ClientCertOptions{User: "alice", Validity: -time.Hour}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ca.IssueClientCert(tc.opts)
			if err == nil {
				t.Fatal("IssueClientCert succeeded, want an error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestLoadCA(t *testing.T) {
	dir := t.TempDir()
	pki := filepath.Join(dir, "pki")
	if _, err := LoadCA(pki, t0); !errors.Is(err, ErrNoCA) {
		t.Fatalf("LoadCA before a server start: err = %v, want ErrNoCA", err)
	}
	creds := mustLoad(t, Options{Dir: dir, Now: clock(t0)})
	ca, err := LoadCA(pki, t0)
	if err != nil {
		t.Fatal(err)
	}
	if string(ca.CertPEM()) != string(creds.CAPEM) {
		t.Error("LoadCA read another CA than the server's")
	}
	// What the loaded CA signs, the server's authenticator accepts.
	cc, err := ca.IssueClientCert(ClientCertOptions{User: "alice", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := creds.Authenticator().Identify(withPeer("", cc.Cert)); !ok || u.Username != "alice" {
		t.Errorf("Identify = %q, %v; want alice", u.Username, ok)
	}

	remove(t, pki, "ca.key")
	if _, err := LoadCA(pki, t0); err == nil || errors.Is(err, ErrNoCA) {
		t.Errorf("LoadCA with half a CA: err = %v, want an error other than ErrNoCA", err)
	}
	if _, err := LoadCA("", t0); err == nil {
		t.Error("LoadCA with no directory succeeded")
	}
}

func TestCANotKeptByHand(t *testing.T) {
	c := &Credentials{CAPEM: mustGenerate(t).CAPEM}
	if c.CA() != nil {
		t.Error("CA() of hand-made credentials is not nil")
	}
}

// TestClientCertOverTLS checks the handshake: clients with and without a
// certificate connect, and a certificate that does not verify is a 401
// from the authenticator rather than a failed handshake.
func TestClientCertOverTLS(t *testing.T) {
	creds := mustGenerate(t)
	auth := creds.Authenticator()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok := auth.Identify(r)
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(u.Username))
	}))
	srv.TLS = creds.TLSConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)

	expired, err := creds.CA().IssueClientCert(ClientCertOptions{User: "alice", Now: time.Now().Add(-48 * time.Hour), Validity: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	good, err := creds.CA().IssueClientCert(ClientCertOptions{User: "alice", Groups: []string{"dev"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		cert     *ClientCert
		token    string
		wantCode int
		wantBody string
	}{
		{"certificate", good, "", http.StatusOK, "alice"},
		{"token, no certificate", nil, creds.AdminToken, http.StatusOK, AdminUser.Username},
		{"expired certificate", expired, "", http.StatusUnauthorized, ""},
		{"expired certificate and token", expired, creds.AdminToken, http.StatusOK, AdminUser.Username},
		{"nothing", nil, "", http.StatusUnauthorized, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := creds.ClientTLSConfig()
			if err != nil {
				t.Fatal(err)
			}
			if tc.cert != nil {
				pair, err := tls.X509KeyPair(tc.cert.CertPEM, tc.cert.KeyPEM)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Certificates = []tls.Certificate{pair}
			}
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
			req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/api", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			body := make([]byte, 64)
			n, _ := resp.Body.Read(body)
			_ = resp.Body.Close()
			if resp.StatusCode != tc.wantCode || string(body[:n]) != tc.wantBody {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, body[:n], tc.wantCode, tc.wantBody)
			}
		})
	}
	t.Run("kubeconfig through client-go", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "alice.kubeconfig")
		if err := (Kubeconfig{Server: srv.URL, CAPEM: creds.CAPEM, User: "alice", ClientCert: good}).Write(path); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != 0o600 {
			t.Errorf("mode = %v, want 0600", got)
		}
		cfg, err := clientcmd.LoadFromFile(path)
		if err != nil {
			t.Fatal(err)
		}
		kctx := cfg.Contexts[cfg.CurrentContext]
		if cfg.CurrentContext != "alice@setpoint" || kctx == nil || kctx.Cluster != "setpoint" || kctx.AuthInfo != "alice" {
			t.Errorf("current context %q = %+v, want alice@setpoint with cluster setpoint and user alice", cfg.CurrentContext, kctx)
		}
		req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/api", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := clientFor(t, path).Do(req)
		if err != nil {
			t.Fatalf("GET: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != "alice" {
			t.Errorf("got %d %q, want 200 alice", resp.StatusCode, body)
		}
	})
}

func TestKubeconfigEncodeErrors(t *testing.T) {
	cc := &ClientCert{CertPEM: []byte("c"), KeyPEM: []byte("k")}
	ok := Kubeconfig{Server: "https://x", CAPEM: []byte("ca"), User: "u", ClientCert: cc}
	if _, err := ok.Encode(); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	tests := []struct {
		name string
		edit func(*Kubeconfig)
	}{
		{"no server", func(k *Kubeconfig) { k.Server = "" }},
		{"no CA", func(k *Kubeconfig) { k.CAPEM = nil }},
		{"no user", func(k *Kubeconfig) { k.User = "" }},
		{"no credentials", func(k *Kubeconfig) { k.ClientCert = nil }},
		{"token and certificate", func(k *Kubeconfig) { k.Token = "t" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := ok
			tc.edit(&k)
			if _, err := k.Encode(); err == nil {
				t.Error("Encode succeeded, want an error")
			}
		})
	}
}

// TestCertCache checks a remembered chain is used only while each of its
// certificates is valid, and only for the same chain.
func TestCertCache(t *testing.T) {
	creds := mustGenerate(t)
	now := time.Now()
	leaf := mustIssue(t, creds, ClientCertOptions{User: "alice", Now: now, Validity: time.Hour})
	chain := []*x509.Certificate{leaf, creds.ca.cert}
	var c certCache
	key := chainKey([]*x509.Certificate{leaf})
	c.put(key, authenticationv1.UserInfo{Username: "alice"}, chain)
	tests := []struct {
		name string
		key  [sha256.Size]byte
		at   time.Time
		want bool
	}{
		{"now", key, now, true},
		{"before the leaf is valid", key, leaf.NotBefore.Add(-time.Second), false},
		{"after the leaf expired", key, leaf.NotAfter.Add(time.Second), false},
		{"another chain", chainKey([]*x509.Certificate{leaf, leaf}), now, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, got := c.get(tc.key, tc.at); got != tc.want {
				t.Errorf("get = %v, want %v", got, tc.want)
			}
		})
	}

	// Repeated requests identify the same user, from the cache or not.
	a := creds.Authenticator()
	for i := range 3 {
		if u, ok := a.Identify(withPeer("", leaf)); !ok || u.Username != "alice" {
			t.Errorf("request %d: Identify = %q, %v; want alice", i, u.Username, ok)
		}
	}
	if n := len(a.verified.entries); n != 1 {
		t.Errorf("cache holds %d chains, want 1", n)
	}
	// Another CA's authenticator does not share what this one verified.
	if _, ok := mustGenerate(t).Authenticator().Identify(withPeer("", leaf)); ok {
		t.Error("another CA's authenticator admitted the certificate")
	}
}

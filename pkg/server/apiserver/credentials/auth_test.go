package credentials

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestAuthenticator(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		name    string
		token   string   // the authenticator's token
		headers []string // Authorization values sent
		want    bool
	}{
		{"right token", token, []string{"Bearer " + token}, true},
		{"lower-case scheme", token, []string{"bearer " + token}, true},
		{"wrong token", token, []string{"Bearer 0123456789abcdef0123456789abcdee"}, false},
		{"token prefix", token, []string{"Bearer " + token[:10]}, false},
		{"token with suffix", token, []string{"Bearer " + token + "x"}, false},
		{"missing header", token, nil, false},
		{"basic auth", token, []string{"Basic " + token}, false},
		{"bearer without token", token, []string{"Bearer"}, false},
		{"bearer with empty token", token, []string{"Bearer "}, false},
		{"bare token", token, []string{token}, false},
		{"two headers", token, []string{"Bearer " + token, "Bearer " + token}, false},
		{"empty configured token", "", []string{"Bearer "}, false},
		{"empty configured token, no header", "", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api", nil)
			for _, h := range tc.headers {
				r.Header.Add("Authorization", h)
			}
			if got := NewAuthenticator(tc.token).Authenticate(r); got != tc.want {
				t.Errorf("Authenticate = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNilAuthenticator(t *testing.T) {
	var a *Authenticator
	r := httptest.NewRequest("GET", "/api", nil)
	r.Header.Set("Authorization", "Bearer x")
	if a.Authenticate(r) {
		t.Error("nil Authenticator admitted a request")
	}
}

func TestIdentifyLoopback(t *testing.T) {
	const admin = "0123456789abcdef0123456789abcdef"
	const loopback = "fedcba9876543210fedcba9876543210"
	tests := []struct {
		name     string
		loopback string // the authenticator's loopback token
		header   string
		wantUser string // "" when refused
	}{
		{"admin token", loopback, "Bearer " + admin, AdminUser.Username},
		{"loopback token", loopback, "Bearer " + loopback, LoopbackUsername},
		{"loopback token not configured", "", "Bearer " + loopback, ""},
		{"empty loopback token admits no empty bearer", "", "Bearer ", ""},
		{"unknown token", loopback, "Bearer " + admin[:31] + "0", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAuthenticator(admin)
			if tc.loopback != "" {
				a = a.WithLoopback(tc.loopback)
			}
			r := httptest.NewRequest("GET", "/api", nil)
			r.Header.Set("Authorization", tc.header)
			info, ok := a.Identify(r)
			if got := info.Username; got != tc.wantUser || ok != (tc.wantUser != "") {
				t.Errorf("Identify = %q, %v; want %q", got, ok, tc.wantUser)
			}
			if got := a.Authenticate(r); got != (tc.wantUser != "") {
				t.Errorf("Authenticate = %v, want %v", got, tc.wantUser != "")
			}
		})
	}
}

func TestCredentialsLoopbackToken(t *testing.T) {
	c, err := Generate(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if c.LoopbackToken == "" || c.LoopbackToken == c.AdminToken {
		t.Fatalf("loopback token %q: want a token of its own", c.LoopbackToken)
	}
	r := httptest.NewRequest("GET", "/api", nil)
	r.Header.Set("Authorization", "Bearer "+c.LoopbackToken)
	info, ok := c.Authenticator().Identify(r)
	if !ok || info.Username != LoopbackUsername {
		t.Errorf("loopback token identifies as %q, %v; want %q", info.Username, ok, LoopbackUsername)
	}
	if len(info.UID) != 36 || info.UID == c.Authenticator().loopback.user.UID {
		t.Errorf("loopback UID %q: want a UUID of each authenticator's own", info.UID)
	}
}

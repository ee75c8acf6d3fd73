package credentials

import (
	"net/http/httptest"
	"testing"
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

package serviceaccount

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestIssueValidateRoundTrip(t *testing.T) {
	rsa1, _, ec := testKeys(t)
	for _, k := range []*Key{rsa1, ec} {
		t.Run(k.Algorithm(), func(t *testing.T) {
			spec := testSpec()
			spec.Pod = &Ref{Name: "p", UID: "p-uid"}
			spec.Node = &Ref{Name: "n", UID: "n-uid"}
			spec.WarnAfterSeconds = 60
			tok, want := issue(t, k, spec, testNow)
			got, err := NewKeySet(k.Public()).Validate(tok, testNow, []string{testIssuer}, []string{testIssuer})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("claims\n got %+v\nwant %+v", *got, want)
			}
			if h := decodePart(t, tok, 0); string(h) != `{"alg":"`+k.Algorithm()+`","kid":"`+k.ID()+`"}` {
				t.Errorf("header = %s", h)
			}
		})
	}
}

func TestNewClaims(t *testing.T) {
	spec := testSpec()
	spec.Secret = &Ref{Name: "s", UID: "s-uid"}
	now := testNow.Add(300 * time.Millisecond)
	c, err := NewClaims(spec, now)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "system:serviceaccount:ns:sa" || !c.IssuedAt.Equal(testNow) || !c.NotBefore.Equal(testNow) ||
		!c.Expiry.Equal(testNow.Add(time.Hour)) || !c.WarnAfter.IsZero() {
		t.Errorf("claims = %+v", c)
	}
	if len(c.ID) != 36 || c.ID[14] != '4' || !strings.ContainsRune("89ab", rune(c.ID[19])) {
		t.Errorf("jti %q is not a version 4 UUID", c.ID)
	}
	if c2, _ := NewClaims(spec, now); c2.ID == c.ID {
		t.Errorf("two tokens share the jti %q", c.ID)
	}
	spec.Pod = &Ref{Name: "p", UID: "p-uid"}
	if _, err := NewClaims(spec, now); err == nil {
		t.Error("NewClaims bound to a secret and a pod: no error")
	}
}

func decodePart(t *testing.T, tok string, i int) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[i])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signRaw makes a token of any header and payload, signed by k (or by
// nobody when k is nil).
func signRaw(t *testing.T, k *Key, hdr string, payload []byte) string {
	t.Helper()
	input := base64.RawURLEncoding.EncodeToString([]byte(hdr)) + "." + base64.RawURLEncoding.EncodeToString(payload)
	if k == nil {
		return input + "."
	}
	sig, err := sign(k, []byte(input))
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func payloadOf(t *testing.T, c Claims, edit func(m map[string]any)) []byte {
	t.Helper()
	b, err := json.Marshal(c.wire())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestValidateRefuses(t *testing.T) {
	rsa1, rsa2, ec := testKeys(t)
	keys := NewKeySet(rsa1.Public(), ec.Public())
	good, goodClaims := issue(t, rsa1, testSpec(), testNow)
	parts := strings.Split(good, ".")
	rsaHeader := `{"alg":"RS256","kid":"` + rsa1.ID() + `"}`
	at := func(d time.Duration) Claims {
		c, err := NewClaims(testSpec(), testNow.Add(d))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	issued := func(k *Key, c Claims) string {
		tok, err := k.Issue(c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	withPayload := func(edit func(m map[string]any)) string {
		return signRaw(t, rsa1, rsaHeader, payloadOf(t, goodClaims, edit))
	}
	hs256 := func() string {
		// The classic confusion: the public key's PEM as an HMAC secret.
		input := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","kid":"`+rsa1.ID()+`"}`)) + "." + parts[1]
		mac := hmac.New(sha256.New, rsa1.Public().MarshalPEM())
		mac.Write([]byte(input))
		return input + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	}()
	tampered := withPayload(func(m map[string]any) {})
	tampered = strings.Split(tampered, ".")[0] + "." + base64.RawURLEncoding.EncodeToString(payloadOf(t, goodClaims, func(m map[string]any) {
		m["kubernetes.io"].(map[string]any)["namespace"] = "kube-system"
	})) + "." + parts[2]
	sig := []byte(parts[2])
	sig[10] = map[bool]byte{true: 'B', false: 'A'}[sig[10] == 'A']

	tests := []struct {
		name    string
		token   string
		now     time.Duration // after testNow
		auds    []string
		wantErr error
		wantMsg string
	}{
		{name: "valid", token: good},
		{name: "valid within the leeway after exp", token: good, now: time.Hour + 59*time.Second},
		{name: "valid within the leeway before nbf", token: good, now: -59 * time.Second},
		{name: "valid for any audience when none are asked", token: good, auds: []string{}},
		{name: "expired", token: good, now: time.Hour + 61*time.Second, wantErr: ErrExpired, wantMsg: "service account token has expired"},
		{name: "not yet valid", token: good, now: -61 * time.Second, wantErr: ErrNotYetValid, wantMsg: "service account token is not valid yet"},
		{name: "issued in the future", token: withPayload(func(m map[string]any) {
			m["iat"] = testNow.Add(2 * time.Minute).Unix()
		}), wantErr: ErrIssuedInFuture, wantMsg: "service account token is issued in the future"},
		{name: "wrong audience", token: good, auds: []string{"vault"}, wantErr: ErrAudience,
			wantMsg: `token audiences ["https://setpoint.test"] is invalid for the target audiences ["vault"]`},
		{name: "wrong issuer", token: issued(rsa1, func() Claims { c := at(0); c.Issuer = "https://other"; return c }()),
			wantErr: ErrIssuer, wantMsg: `token issuer "https://other" is invalid`},
		{name: "tampered payload", token: tampered, wantErr: ErrSignature, wantMsg: "go-jose/go-jose: error in cryptographic primitive"},
		{name: "tampered signature", token: parts[0] + "." + parts[1] + "." + string(sig), wantErr: ErrSignature},
		{name: "signature removed", token: parts[0] + "." + parts[1] + ".", wantErr: ErrSignature},
		{name: "unknown key", token: issued(rsa2, at(0)), wantErr: ErrSignature, wantMsg: "invalid signature, no keys found"},
		{name: "unknown key without kid", token: signRaw(t, rsa2, `{"alg":"RS256"}`, []byte(decodePart(t, good, 1))), wantErr: ErrSignature},
		{name: "other key's kid", token: signRaw(t, rsa2, rsaHeader, decodePart(t, good, 1)), wantErr: ErrSignature},
		{name: "alg none", token: signRaw(t, nil, `{"alg":"none"}`, decodePart(t, good, 1)), wantErr: ErrAlgorithm},
		{name: "alg none with kid", token: signRaw(t, nil, `{"alg":"none","kid":"`+rsa1.ID()+`"}`, decodePart(t, good, 1)), wantErr: ErrAlgorithm},
		{name: "HS256 keyed with the public key", token: hs256, wantErr: ErrAlgorithm, wantMsg: "go-jose/go-jose: unknown/unsupported algorithm"},
		{name: "PS256", token: signRaw(t, nil, `{"alg":"PS256"}`, decodePart(t, good, 1)), wantErr: ErrAlgorithm},
		{name: "ES256 header on an RSA key", token: signRaw(t, ec, `{"alg":"ES256","kid":"`+rsa1.ID()+`"}`, decodePart(t, good, 1)), wantErr: ErrAlgorithm},
		{name: "two parts", token: parts[0] + "." + parts[1], wantErr: ErrMalformed},
		{name: "four parts", token: good + ".", wantErr: ErrMalformed},
		{name: "padding", token: good + "=", wantErr: ErrMalformed},
		{name: "line break", token: parts[0] + "." + parts[1][:10] + "\n" + parts[1][10:] + "." + parts[2], wantErr: ErrMalformed},
		{name: "standard base64", token: parts[0] + "." + parts[1] + "." + strings.NewReplacer("-", "+", "_", "/").Replace(parts[2]) + "+/", wantErr: ErrMalformed},
		{name: "JSON serialization", token: `{"payload":"` + parts[1] + `"}`, wantErr: ErrMalformed},
		{name: "empty", token: "", wantErr: ErrMalformed},
		{name: "header not JSON", token: signRaw(t, rsa1, `alg=RS256`, decodePart(t, good, 1)), wantErr: ErrMalformed},
		{name: "header without alg", token: signRaw(t, rsa1, `{"kid":"`+rsa1.ID()+`"}`, decodePart(t, good, 1)), wantErr: ErrMalformed},
		{name: "critical extension", token: signRaw(t, rsa1, `{"alg":"RS256","crit":["exp"],"exp":1}`, decodePart(t, good, 1)), wantErr: ErrMalformed},
		{name: "payload not JSON", token: signRaw(t, rsa1, rsaHeader, []byte("not json")), wantErr: ErrMalformed},
		{name: "aud as a string", token: withPayload(func(m map[string]any) { m["aud"] = testIssuer })},
		{name: "aud null", token: withPayload(func(m map[string]any) { m["aud"] = nil }), wantErr: ErrClaims},
		{name: "exp a string", token: withPayload(func(m map[string]any) { m["exp"] = "soon" }), wantErr: ErrClaims},
		{name: "no kubernetes.io claim", token: withPayload(func(m map[string]any) { delete(m, "kubernetes.io") }), wantErr: ErrClaims},
		{name: "no service account uid", token: withPayload(func(m map[string]any) {
			delete(m["kubernetes.io"].(map[string]any)["serviceaccount"].(map[string]any), "uid")
		}), wantErr: ErrClaims},
		{name: "pod without uid", token: withPayload(func(m map[string]any) {
			m["kubernetes.io"].(map[string]any)["pod"] = map[string]any{"name": "p"}
		}), wantErr: ErrClaims},
		{name: "EC token", token: issued(ec, at(0))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auds := tt.auds
			if auds == nil {
				auds = []string{testIssuer}
			}
			c, err := keys.Validate(tt.token, testNow.Add(tt.now), auds, []string{testIssuer})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want success", err)
				}
				if c.ServiceAccount.Name != "sa" {
					t.Errorf("claims = %+v", c)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Validate = %v, want %v", err, tt.wantErr)
			}
			if tt.wantMsg != "" && err.Error() != tt.wantMsg {
				t.Errorf("message = %q, want %q", err.Error(), tt.wantMsg)
			}
			if got, want := Unrecognized(err), tt.wantErr == ErrMalformed || tt.wantErr == ErrIssuer; got != want {
				t.Errorf("Unrecognized = %v, want %v", got, want)
			}
		})
	}
}

// kube checks the audience before the times: an expired token for
// another audience is refused for its audience.
func TestValidateOrder(t *testing.T) {
	rsa1, _, _ := testKeys(t)
	tok, _ := issue(t, rsa1, testSpec(), testNow)
	_, err := NewKeySet(rsa1.Public()).Validate(tok, testNow.Add(24*time.Hour), []string{"other"}, []string{testIssuer})
	if !errors.Is(err, ErrAudience) {
		t.Errorf("Validate = %v, want ErrAudience", err)
	}
}

func TestKeyRotation(t *testing.T) {
	oldKey, newKey, _ := testKeys(t)
	oldToken, _ := issue(t, oldKey, testSpec(), testNow)
	newToken, _ := issue(t, newKey, testSpec(), testNow)
	kidless := func(tok string) string {
		return signRaw(t, oldKey, `{"alg":"RS256"}`, decodePart(t, tok, 1))
	}
	tests := []struct {
		name    string
		keys    *KeySet
		token   string
		wantErr error
	}{
		{"old token while the old key is listed", NewKeySet(newKey.Public(), oldKey.Public()), oldToken, nil},
		{"new token while the old key is listed", NewKeySet(newKey.Public(), oldKey.Public()), newToken, nil},
		{"old token without kid, every key tried", NewKeySet(newKey.Public(), oldKey.Public()), kidless(oldToken), nil},
		{"old token once the old key is dropped", NewKeySet(newKey.Public()), oldToken, ErrSignature},
		{"old token without kid once dropped", NewKeySet(newKey.Public()), kidless(oldToken), ErrSignature},
		{"new token before the new key is listed", NewKeySet(oldKey.Public()), newToken, ErrSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.keys.Validate(tt.token, testNow, []string{testIssuer}, []string{testIssuer})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("Validate = %v, want %v", err, tt.wantErr)
			}
		})
	}
	if got := NewKeySet(oldKey.Public(), newKey.Public(), oldKey.Public()).Keys(); len(got) != 2 {
		t.Errorf("a key listed twice is kept %d times", len(got))
	}
}

func TestIssueRefuses(t *testing.T) {
	k, _, _ := testKeys(t)
	good, err := NewClaims(testSpec(), testNow)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(c *Claims)
	}{
		{"no issuer", func(c *Claims) { c.Issuer = "" }},
		{"no namespace", func(c *Claims) { c.Namespace = "" }},
		{"no service account uid", func(c *Claims) { c.ServiceAccount.UID = "" }},
		{"no expiry", func(c *Claims) { c.Expiry = time.Time{} }},
		{"another subject", func(c *Claims) { c.Subject = "system:serviceaccount:ns:other" }},
		{"secret and pod", func(c *Claims) { c.Secret, c.Pod = &Ref{"s", "1"}, &Ref{"p", "2"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.edit(&c)
			if tok, err := k.Issue(c); err == nil {
				t.Errorf("Issue = %q, want an error", tok)
			}
		})
	}
	c := good
	c.Subject, c.ID = "", ""
	tok, err := k.Issue(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := NewKeySet(k.Public()).Validate(tok, testNow, nil, []string{testIssuer})
	if err != nil {
		t.Fatal(err)
	}
	if got.Subject != "system:serviceaccount:ns:sa" || got.ID == "" {
		t.Errorf("Issue did not fill sub and jti: %+v", got)
	}
}

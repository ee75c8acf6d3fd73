package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"sync"
	"testing"
	"time"
)

const testIssuer = "https://setpoint.test"

// RSA keys take a while to generate; tests share a few.
var (
	keysOnce sync.Once
	rsaKeys  [2]*Key
	ecKey    *Key
	keysErr  error
)

func testKeys(t testing.TB) (rsa1, rsa2, ec *Key) {
	t.Helper()
	keysOnce.Do(func() {
		for i := range rsaKeys {
			if rsaKeys[i], keysErr = GenerateKey(); keysErr != nil {
				return
			}
		}
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			keysErr = err
			return
		}
		ecKey, keysErr = NewKey(priv)
	})
	if keysErr != nil {
		t.Fatal(keysErr)
	}
	return rsaKeys[0], rsaKeys[1], ecKey
}

// testNow is a fixed instant the tests' tokens are issued at.
var testNow = time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)

func testSpec() TokenSpec {
	return TokenSpec{
		Issuer:            testIssuer,
		Namespace:         "ns",
		ServiceAccount:    Ref{Name: "sa", UID: "sa-uid"},
		Audiences:         []string{testIssuer},
		ExpirationSeconds: DefaultExpirationSeconds,
	}
}

func issue(t testing.TB, k *Key, s TokenSpec, now time.Time) (string, Claims) {
	t.Helper()
	c, err := NewClaims(s, now)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := k.Issue(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok, c
}

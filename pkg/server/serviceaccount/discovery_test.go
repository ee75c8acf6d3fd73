package serviceaccount

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
)

func TestJWKSOfECKey(t *testing.T) {
	rsaKey, _, ecKey := testKeys(t)
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal(JWKS([]PublicKey{ecKey.Public(), rsaKey.Public()}), &set); err != nil {
		t.Fatal(err)
	}
	ec := set.Keys[0]
	if ec["kty"] != "EC" || ec["crv"] != "P-256" || ec["alg"] != ES256 || ec["use"] != "sig" || ec["kid"] != ecKey.ID() {
		t.Errorf("EC JWK = %v", ec)
	}
	for _, c := range []string{"x", "y"} {
		if b, err := base64.RawURLEncoding.DecodeString(ec[c]); err != nil || len(b) != 32 {
			t.Errorf("%s = %q: %d bytes, %v; want 32", c, ec[c], len(b), err)
		}
	}
	if set.Keys[1]["kty"] != "RSA" || set.Keys[1]["e"] != "AQAB" {
		t.Errorf("RSA JWK = %v", set.Keys[1])
	}
	doc := DiscoveryDocument(testIssuer, DefaultJWKSURI("setpoint.test:6443"), []PublicKey{ecKey.Public(), rsaKey.Public(), rsaKey.Public()})
	want := `{"issuer":"https://setpoint.test","jwks_uri":"https://setpoint.test:6443/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}`
	if string(doc) != want {
		t.Errorf("DiscoveryDocument =\n%s\nwant\n%s", doc, want)
	}
	if got := string(JWKS(nil)); got != `{"keys":[]}` {
		t.Errorf("JWKS(nil) = %s", got)
	}
}

func TestValidateDiscoveryIssuer(t *testing.T) {
	for _, tt := range []struct {
		issuer string
		ok     bool
	}{
		{"https://kubernetes.default.svc.cluster.local", true},
		{"https://example.com/cluster/a", true},
		{"http://example.com", false},
		{"kubernetes/serviceaccount", false},
		{"https://example.com?x=1", false},
		{"https://example.com#x", false},
		{"", false},
	} {
		err := ValidateDiscoveryIssuer(tt.issuer)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrDiscoveryIssuer)) {
			t.Errorf("ValidateDiscoveryIssuer(%q) = %v", tt.issuer, err)
		}
	}
}

package serviceaccount

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// testdata/oracle-* come from a real kube-apiserver v1.33.13 started
// with --service-account-issuer=https://127.0.0.1:26443 and the key
// whose public half is oracle-sa.pub: its discovery documents, a
// token from `kubectl create token probe --bound-object-kind Pod
// --bound-object-name p1 --duration=3607s` (a pod scheduled to node
// nodex) and one bound to Secret s1 for audiences a and b.
const oracleIssuer = "https://127.0.0.1:26443"

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func oracleKey(t *testing.T) PublicKey {
	t.Helper()
	keys, err := ParsePublicKeysPEM(readTestdata(t, "oracle-sa.pub"))
	if err != nil || len(keys) != 1 {
		t.Fatalf("ParsePublicKeysPEM = %d keys, %v", len(keys), err)
	}
	return keys[0]
}

func oracleToken(t *testing.T, name string) string {
	return strings.TrimSpace(string(readTestdata(t, name)))
}

func TestOracleKeyID(t *testing.T) {
	var jwks struct {
		Keys []struct {
			Kid string `json:"kid"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(readTestdata(t, "oracle-jwks.json"), &jwks); err != nil {
		t.Fatal(err)
	}
	if got, want := oracleKey(t).ID(), jwks.Keys[0].Kid; got != want {
		t.Errorf("key ID = %q, kube's = %q", got, want)
	}
}

func TestOracleDiscoveryDocuments(t *testing.T) {
	keys := []PublicKey{oracleKey(t)}
	tests := []struct {
		name   string
		got    []byte
		golden string
	}{
		{"openid-configuration", DiscoveryDocument(oracleIssuer, DefaultJWKSURI("127.0.0.1:26443"), keys), "oracle-openid-configuration.json"},
		{"jwks", JWKS(keys), "oracle-jwks.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if want := readTestdata(t, tt.golden); !bytes.Equal(tt.got, want) {
				t.Errorf("got\n%s\nkube-apiserver serves\n%s", tt.got, want)
			}
		})
	}
}

func TestOracleTokenValidates(t *testing.T) {
	keys := NewKeySet(oracleKey(t))
	token := oracleToken(t, "oracle-pod-token.jwt")
	iat := time.Unix(1795809431, 0).UTC()
	c, err := keys.Validate(token, iat.Add(10*time.Second), []string{oracleIssuer}, []string{oracleIssuer})
	if err != nil {
		t.Fatal(err)
	}
	want := &Claims{
		Issuer:         oracleIssuer,
		Subject:        "system:serviceaccount:satok-helper:probe",
		Audiences:      []string{oracleIssuer},
		IssuedAt:       iat,
		NotBefore:      iat,
		Expiry:         iat.Add(time.Duration(ExpirationExtensionSeconds) * time.Second),
		ID:             "28fdb263-cd8f-436c-b19f-703808792b94",
		Namespace:      "satok-helper",
		ServiceAccount: Ref{Name: "probe", UID: "1933d0f8-9b6e-4085-b819-237682c707cb"},
		Pod:            &Ref{Name: "p1", UID: "28ebad62-10e4-412b-aa81-66d18ab2123f"},
		Node:           &Ref{Name: "nodex", UID: "1f564ef1-f9be-44de-9486-6a1fef09d4b9"},
		WarnAfter:      iat.Add(time.Duration(WarnOnlyBoundTokenExpirationSeconds) * time.Second),
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("claims\n got %+v\nwant %+v", c, want)
	}
}

// The header and payload Issue writes are kube-apiserver's bytes for
// the same claims and key.
func TestOracleTokenBytes(t *testing.T) {
	for _, name := range []string{"oracle-pod-token.jwt", "oracle-secret-token.jwt"} {
		t.Run(name, func(t *testing.T) {
			parts := strings.Split(oracleToken(t, name), ".")
			keys := NewKeySet(oracleKey(t))
			c, err := keys.Validate(oracleToken(t, name), time.Unix(1795809431, 0), nil, []string{oracleIssuer})
			if err != nil {
				t.Fatal(err)
			}
			payload, err := json.Marshal(c.wire())
			if err != nil {
				t.Fatal(err)
			}
			if got := base64.RawURLEncoding.EncodeToString(payload); got != parts[1] {
				t.Errorf("payload\n got %s\nwant %s", payload, mustDecode(t, parts[1]))
			}
			h, err := json.Marshal(header{Alg: RS256, Kid: oracleKey(t).ID()})
			if err != nil {
				t.Fatal(err)
			}
			if got := base64.RawURLEncoding.EncodeToString(h); got != parts[0] {
				t.Errorf("header\n got %s\nwant %s", h, mustDecode(t, parts[0]))
			}
		})
	}
}

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The user of a TokenReview of the pod-bound token, as kube-apiserver
// answered it (with that token's jti).
func TestOracleUserInfo(t *testing.T) {
	c, err := NewKeySet(oracleKey(t)).Validate(oracleToken(t, "oracle-pod-token.jwt"), time.Unix(1795809431, 0), nil, []string{oracleIssuer})
	if err != nil {
		t.Fatal(err)
	}
	want := authenticationv1.UserInfo{
		Username: "system:serviceaccount:satok-helper:probe",
		UID:      "1933d0f8-9b6e-4085-b819-237682c707cb",
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:satok-helper", "system:authenticated"},
		Extra: map[string]authenticationv1.ExtraValue{
			"authentication.kubernetes.io/credential-id": {"JTI=28fdb263-cd8f-436c-b19f-703808792b94"},
			"authentication.kubernetes.io/node-name":     {"nodex"},
			"authentication.kubernetes.io/node-uid":      {"1f564ef1-f9be-44de-9486-6a1fef09d4b9"},
			"authentication.kubernetes.io/pod-name":      {"p1"},
			"authentication.kubernetes.io/pod-uid":       {"28ebad62-10e4-412b-aa81-66d18ab2123f"},
		},
	}
	if got := UserInfo(c); !reflect.DeepEqual(got, want) {
		t.Errorf("UserInfo\n got %+v\nwant %+v", got, want)
	}
}

// kube-apiserver's TokenReview said, for a token for audience "a" and
// the server's audiences: token audiences ["a"] is invalid for the
// target audiences ["https://127.0.0.1:26443"].
func TestOracleAudienceMessage(t *testing.T) {
	keys := NewKeySet(oracleKey(t))
	token := oracleToken(t, "oracle-secret-token.jwt")
	now := time.Unix(1795809431, 0)
	_, err := keys.Validate(token, now, []string{oracleIssuer}, []string{oracleIssuer})
	if want := `token audiences ["a" "b"] is invalid for the target audiences ["https://127.0.0.1:26443"]`; !errors.Is(err, ErrAudience) || err.Error() != want {
		t.Errorf("Validate = %v, want ErrAudience %q", err, want)
	}
	c, err := keys.Validate(token, now, []string{"c", "b"}, []string{oracleIssuer})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.MatchAudiences([]string{"c", "b", "a"}); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Errorf("MatchAudiences = %q, want [b a]", got)
	}
}

package serviceaccount

import (
	"strings"
	"testing"
)

// fuzzSetup is one valid token and the keys it validates with.
func fuzzSetup(t testing.TB) (keys *KeySet, valid string) {
	rsaKey, _, ecKey := testKeys(t)
	spec := testSpec()
	spec.Pod = &Ref{Name: "p", UID: "p-uid"}
	valid, _ = issue(t, rsaKey, spec, testNow)
	return NewKeySet(rsaKey.Public(), ecKey.Public()), valid
}

// FuzzValidate: Validate never panics; nothing but the valid token
// validates (forging a signature is not something a fuzzer finds), and
// in particular the valid token with any one byte changed does not.
func FuzzValidate(f *testing.F) {
	keys, valid := fuzzSetup(f)
	parts := strings.Split(valid, ".")
	for _, seed := range []string{valid, "", ".", "..", "a.b.c", parts[0] + "." + parts[1] + ".", `{"alg":"none"}`, valid + "="} {
		f.Add(seed, uint(0), byte('A'))
	}
	f.Add(valid, uint(len(valid)-1), byte('B'))
	f.Add(valid, uint(len(parts[0])), byte('\n'))
	f.Fuzz(func(t *testing.T, token string, pos uint, b byte) {
		auds, issuers := []string{testIssuer}, []string{testIssuer}
		if _, err := keys.Validate(token, testNow, auds, issuers); err == nil && token != valid {
			t.Fatalf("a token other than the one issued validates: %q", token)
		}
		mutated := []byte(valid)
		mutated[pos%uint(len(mutated))] = b
		if string(mutated) == valid {
			return
		}
		if _, err := keys.Validate(string(mutated), testNow, auds, issuers); err == nil {
			t.Fatalf("the valid token with byte %d set to %q validates", pos%uint(len(mutated)), b)
		}
	})
}

// Every single-byte change of a valid token is refused, for the bytes
// most likely to slip through a lenient decoder: padding, line breaks,
// the standard alphabet's + and /, and at the end of each part, whose
// last character carries spare bits, every character of the alphabet.
func TestEveryByteMatters(t *testing.T) {
	keys, valid := fuzzSetup(t)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range len(valid) {
		candidates := []byte{valid[i] ^ 1, '=', '\n', '\r', '+', '/', '.', ' '}
		if i+1 == len(valid) || valid[i+1] == '.' {
			candidates = append(candidates, alphabet...)
		}
		for _, b := range candidates {
			mutated := []byte(valid)
			mutated[i] = b
			if string(mutated) == valid {
				continue
			}
			if _, err := keys.Validate(string(mutated), testNow, []string{testIssuer}, []string{testIssuer}); err == nil {
				t.Errorf("byte %d set to %q: the token still validates", i, b)
			}
		}
	}
}

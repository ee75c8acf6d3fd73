package storage_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

func TestValidateKey(t *testing.T) {
	tests := []struct {
		key  string
		want error
	}{
		{"/registry/configmaps/default/a", nil},
		{"x", nil},
		{"/ünïcode/ok", nil},
		{"", storage.ErrInvalidKey},
		{"/a\x00", storage.ErrInvalidKey},
		{"/\xff", storage.ErrInvalidKey},
		{strings.Repeat("k", storage.MaxKeyLen), nil},
		{strings.Repeat("k", storage.MaxKeyLen+1), storage.ErrInvalidKey},
	}
	for _, tt := range tests {
		if got := storage.ValidateKey(tt.key); !errors.Is(got, tt.want) || (tt.want == nil) != (got == nil) {
			t.Errorf("ValidateKey(%.20q) = %v, want %v", tt.key, got, tt.want)
		}
	}
	if err := storage.ValidatePrefix(""); err != nil {
		t.Errorf("ValidatePrefix(\"\") = %v, want nil", err)
	}
}

func TestContinueToken(t *testing.T) {
	token := storage.EncodeContinue("/p/", "/p/ns/name", 42)
	rev, key, err := storage.DecodeContinue("/p/", token)
	if err != nil || rev != 42 || key != "/p/ns/name" {
		t.Fatalf("DecodeContinue = %d, %q, %v; want 42, /p/ns/name", rev, key, err)
	}
	// Replayed against another prefix, the token stays inside that prefix.
	if _, key, _ := storage.DecodeContinue("/other/", token); !strings.HasPrefix(key, "/other/") {
		t.Fatalf("token escaped its prefix: %q", key)
	}
	for _, bad := range []string{"", "%%%", "bm90IGpzb24", "eyJ2Ijoic2V0cG9pbnQuc3RvcmFnZS92MSIsInJ2IjowLCJhZnRlciI6ImEifQ", strings.Repeat("A", 10000)} {
		if _, _, err := storage.DecodeContinue("/p/", bad); !errors.Is(err, storage.ErrInvalidContinue) {
			t.Errorf("DecodeContinue(%.20q) = %v, want ErrInvalidContinue", bad, err)
		}
	}
}

func FuzzDecodeContinue(f *testing.F) {
	f.Add("/p/", storage.EncodeContinue("/p/", "/p/a", 7))
	f.Add("", storage.EncodeContinue("", "/x", 1))
	f.Add("/p/", "eyJ2IjoieCJ9")
	f.Fuzz(func(t *testing.T, prefix, token string) {
		rev, key, err := storage.DecodeContinue(prefix, token)
		if err != nil {
			if !errors.Is(err, storage.ErrInvalidContinue) {
				t.Fatalf("error %v is not ErrInvalidContinue", err)
			}
			return
		}
		if rev < 1 || !strings.HasPrefix(key, prefix) || len(key) == len(prefix) || storage.ValidateKey(key) != nil {
			t.Fatalf("DecodeContinue(%q, %q) = %d, %q: out of contract", prefix, token, rev, key)
		}
		rev2, key2, err := storage.DecodeContinue(prefix, storage.EncodeContinue(prefix, key, rev))
		if err != nil || rev2 != rev || key2 != key {
			t.Fatalf("round trip of %d, %q = %d, %q, %v", rev, key, rev2, key2, err)
		}
	})
}

func FuzzValidateKey(f *testing.F) {
	f.Add("/registry/a")
	f.Add("\x00")
	f.Fuzz(func(t *testing.T, key string) {
		err := storage.ValidateKey(key)
		if err != nil && !errors.Is(err, storage.ErrInvalidKey) {
			t.Fatalf("error %v is not ErrInvalidKey", err)
		}
		if err == nil && (key == "" || strings.ContainsRune(key, 0) || len(key) > storage.MaxKeyLen) {
			t.Fatalf("ValidateKey(%q) accepted an invalid key", key)
		}
	})
}

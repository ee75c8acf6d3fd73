package rootcacertpublisher

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

func TestBundleFrom(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(file, []byte(testCA), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		tls     rest.TLSClientConfig
		want    string
		wantErr error
	}{
		{"CAData", rest.TLSClientConfig{CAData: []byte(testCA), CAFile: "/nonexistent"}, testCA, nil},
		{"CAFile", rest.TLSClientConfig{CAFile: file}, testCA, nil},
		{"neither", rest.TLSClientConfig{}, "", ErrNoCA},
		{"an unreadable file", rest.TLSClientConfig{CAFile: filepath.Join(t.TempDir(), "none")}, "", os.ErrNotExist},
	}
	for _, tt := range tests {
		got, err := BundleFrom(&rest.Config{TLSClientConfig: tt.tls})
		if string(got) != tt.want || !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
			t.Errorf("%s: %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestCheckBundle(t *testing.T) {
	key := "-----BEGIN EC PRIVATE KEY-----\nMHc=\n-----END EC PRIVATE KEY-----\n"
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"a certificate", testCA, nil},
		{"a certificate after another block", key + testCA, nil},
		{"empty", "", ErrNoCA},
		{"not PEM", "hello", ErrNoCA},
		{"no certificate", key, ErrNoCA},
	}
	for _, tt := range tests {
		if got := checkBundle([]byte(tt.in)); !errors.Is(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestLoadOrCreateKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	first, err := LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if first.Algorithm() != RS256 {
		t.Errorf("new key's alg = %s, want RS256", first.Algorithm())
	}
	for name, want := range map[string]os.FileMode{KeyFile: 0o600, PublicKeyFile: 0o644} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != want {
			t.Errorf("%s mode = %v, want %v", name, fi.Mode().Perm(), want)
		}
	}
	// kubeadm's formats: PKCS #1 RSA key, PKIX public key.
	keyPEM, _ := os.ReadFile(filepath.Join(dir, KeyFile))
	if b, _ := pem.Decode(keyPEM); b == nil || b.Type != "RSA PRIVATE KEY" {
		t.Errorf("sa.key is not a PKCS #1 PEM block:\n%s", keyPEM)
	}
	pubs, err := ParsePublicKeysPEM(mustRead(t, filepath.Join(dir, PublicKeyFile)))
	if err != nil || len(pubs) != 1 || pubs[0].ID() != first.ID() {
		t.Fatalf("sa.pub holds %v (%v), want the key %s", pubs, err, first.ID())
	}
	if b, _ := pem.Decode(mustRead(t, filepath.Join(dir, PublicKeyFile))); b.Type != "PUBLIC KEY" {
		t.Errorf("sa.pub block type = %q", b.Type)
	}

	again, err := LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID() != first.ID() {
		t.Errorf("second load made a new key: %s, was %s", again.ID(), first.ID())
	}

	// A lost sa.pub is written again from sa.key.
	if err := os.Remove(filepath.Join(dir, PublicKeyFile)); err != nil {
		t.Fatal(err)
	}
	if k, err := LoadOrCreateKey(dir); err != nil || k.ID() != first.ID() {
		t.Fatalf("LoadOrCreateKey without sa.pub = %v, %v", k, err)
	}
	if _, err := os.Stat(filepath.Join(dir, PublicKeyFile)); err != nil {
		t.Errorf("sa.pub not rewritten: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLoadOrCreateKeyConcurrent(t *testing.T) {
	dir := t.TempDir()
	const n = 4
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			k, err := LoadOrCreateKey(dir)
			errs[i] = err
			if err == nil {
				ids[i] = k.ID()
			}
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("creator %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Errorf("creator %d got key %s, creator 0 got %s", i, ids[i], ids[0])
		}
	}
	k, err := LoadOrCreateKey(dir)
	if err != nil || k.ID() != ids[0] {
		t.Errorf("key on disk = %v (%v), want the one every creator got, %s", k, err, ids[0])
	}
}

// A key placed by an administrator (here ECDSA in PKCS #8, as openssl
// writes it) is used as it is.
func TestLoadOrCreateKeyExisting(t *testing.T) {
	dir := t.TempDir()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, KeyFile), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := KeyID(&priv.PublicKey); k.ID() != want || k.Algorithm() != ES256 {
		t.Errorf("loaded key %s %s, want %s ES256", k.ID(), k.Algorithm(), want)
	}
}

func TestLoadOrCreateKeyRefuses(t *testing.T) {
	other, _, _ := testKeys(t)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"sa.pub of another key", func(t *testing.T, dir string) {
			if _, err := LoadOrCreateKey(dir); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, PublicKeyFile), other.Public().MarshalPEM())
		}, "does not hold the public key"},
		{"sa.pub without sa.key", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, PublicKeyFile), other.Public().MarshalPEM())
		}, "exists without"},
		{"sa.key without a key", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, KeyFile), []byte("not a key"))
		}, ErrNoPrivateKey.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			if _, err := LoadOrCreateKey(dir); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadOrCreateKey = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

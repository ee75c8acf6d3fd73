package credentials

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func clock(t time.Time) func() time.Time { return func() time.Time { return t } }

func mustLoad(t *testing.T, opts Options) *Credentials {
	t.Helper()
	c, err := LoadOrCreate(opts)
	if err != nil {
		t.Fatalf("LoadOrCreate: %v", err)
	}
	return c
}

func TestLoadOrCreateCreatesFiles(t *testing.T) {
	dir := t.TempDir()
	c := mustLoad(t, Options{Dir: dir, Now: clock(t0)})

	pki := filepath.Join(dir, "pki")
	info, err := os.Stat(pki)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := info.Mode().Perm(), os.FileMode(0o700); got != want {
		t.Errorf("pki dir mode = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		name   string
		secret bool
	}{
		{"ca.crt", false},
		{"ca.key", true},
		{"serving.crt", false},
		{"serving.key", true},
		{"admin.token", true},
	} {
		info, err := os.Stat(filepath.Join(pki, tc.name))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := info.Mode().Perm()
		if tc.secret && got != 0o600 {
			t.Errorf("%s mode = %v, want 0600", tc.name, got)
		}
		if got&0o022 != 0 {
			t.Errorf("%s mode = %v, writable by others", tc.name, got)
		}
	}
	entries, err := os.ReadDir(pki)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(entries), 5; got != want {
		t.Errorf("pki holds %d entries (temp files left?), want %d", got, want)
	}

	caPEM, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(caPEM, c.CAPEM) {
		t.Error("ca.crt differs from returned CAPEM")
	}
	token, err := os.ReadFile(filepath.Join(pki, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(token)); got != c.AdminToken {
		t.Errorf("admin.token = %q, want %q", got, c.AdminToken)
	}
	if got, want := len(c.AdminToken), 64; got != want {
		t.Errorf("token length = %d, want %d hex characters (256 bits)", got, want)
	}
	verifyServing(t, c, "127.0.0.1", t0)
}

func TestLoadOrCreateReusesEverything(t *testing.T) {
	dir := t.TempDir()
	first := mustLoad(t, Options{Dir: dir, Hosts: []string{"api.example.com"}, Now: clock(t0)})
	second := mustLoad(t, Options{Dir: dir, Hosts: []string{"api.example.com"}, Now: clock(t0.Add(24 * time.Hour))})

	if !bytes.Equal(first.CAPEM, second.CAPEM) {
		t.Error("CA changed across restarts")
	}
	if first.AdminToken != second.AdminToken {
		t.Error("token changed across restarts")
	}
	if !bytes.Equal(first.Serving.Certificate[0], second.Serving.Certificate[0]) {
		t.Error("serving certificate regenerated although still valid")
	}
}

func TestLoadOrCreateRegeneratesServing(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name      string
		later     Options // Dir is filled in
		wantNew   bool
		wantHosts []string
	}{
		{name: "same hosts", later: Options{Hosts: []string{"a.example"}}, wantNew: false},
		{name: "hosts reordered and duplicated", later: Options{Hosts: []string{"A.example", "a.example", " localhost "}}, wantNew: false},
		{name: "new DNS host", later: Options{Hosts: []string{"a.example", "b.example"}}, wantNew: true, wantHosts: []string{"b.example", "a.example"}},
		{name: "new IP host", later: Options{Hosts: []string{"10.1.2.3"}}, wantNew: true, wantHosts: []string{"10.1.2.3"}},
		{name: "new IPv6 host", later: Options{Hosts: []string{"fd00::7"}}, wantNew: true, wantHosts: []string{"fd00::7"}},
		{name: "dropping a host keeps the cert", later: Options{}, wantNew: false},
		{name: "valid for 31 more days", later: Options{Hosts: []string{"a.example"}, Now: clock(t0.Add(334 * day))}, wantNew: false},
		{name: "expires within 30 days", later: Options{Hosts: []string{"a.example"}, Now: clock(t0.Add(336 * day))}, wantNew: true, wantHosts: []string{"a.example"}},
		{name: "already expired", later: Options{Hosts: []string{"a.example"}, Now: clock(t0.Add(400 * day))}, wantNew: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first := mustLoad(t, Options{Dir: dir, Hosts: []string{"a.example"}, Now: clock(t0)})

			opts := tc.later
			opts.Dir = dir
			if opts.Now == nil {
				opts.Now = clock(t0.Add(time.Hour))
			}
			got := mustLoad(t, opts)

			if !bytes.Equal(first.CAPEM, got.CAPEM) {
				t.Fatal("CA changed")
			}
			if first.AdminToken != got.AdminToken {
				t.Fatal("token changed")
			}
			gotNew := !bytes.Equal(first.Serving.Certificate[0], got.Serving.Certificate[0])
			if gotNew != tc.wantNew {
				t.Fatalf("serving cert regenerated = %v, want %v", gotNew, tc.wantNew)
			}
			now := opts.Now()
			for _, h := range append(tc.wantHosts, "127.0.0.1", "::1", "localhost") {
				verifyServing(t, got, h, now)
			}
			// What was written must be what a further restart loads.
			again := mustLoad(t, opts)
			if !bytes.Equal(again.Serving.Certificate[0], got.Serving.Certificate[0]) {
				t.Error("regenerated serving cert was not persisted")
			}
		})
	}
}

func TestLoadOrCreateReplacesStaleServingPair(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, pki string)
	}{
		{"serving.crt missing", func(t *testing.T, pki string) { remove(t, pki, "serving.crt") }},
		{"serving.key missing", func(t *testing.T, pki string) { remove(t, pki, "serving.key") }},
		{"serving.key from another install", func(t *testing.T, pki string) {
			other := t.TempDir()
			mustLoad(t, Options{Dir: other, Now: clock(t0)})
			copyFile(t, filepath.Join(other, "pki", "serving.key"), filepath.Join(pki, "serving.key"))
		}},
		{"serving pair signed by another CA", func(t *testing.T, pki string) {
			other := t.TempDir()
			mustLoad(t, Options{Dir: other, Now: clock(t0)})
			for _, name := range []string{"serving.key", "serving.crt"} {
				copyFile(t, filepath.Join(other, "pki", name), filepath.Join(pki, name))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first := mustLoad(t, Options{Dir: dir, Now: clock(t0)})
			tc.damage(t, filepath.Join(dir, "pki"))

			got := mustLoad(t, Options{Dir: dir, Now: clock(t0)})
			if !bytes.Equal(first.CAPEM, got.CAPEM) {
				t.Error("CA changed")
			}
			verifyServing(t, got, "localhost", t0)
		})
	}
}

func TestLoadOrCreateRejectsDamagedFiles(t *testing.T) {
	tests := []struct {
		name     string
		damage   func(t *testing.T, pki string)
		wantFile string
	}{
		{"corrupt ca.crt", func(t *testing.T, pki string) { write(t, pki, "ca.crt", "not a certificate") }, "ca.crt"},
		{"ca.crt with bad DER", func(t *testing.T, pki string) {
			write(t, pki, "ca.crt", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
		}, "ca.crt"},
		{"ca.crt holds a key", func(t *testing.T, pki string) {
			copyFile(t, filepath.Join(pki, "ca.key"), filepath.Join(pki, "ca.crt"))
		}, "ca.crt"},
		{"corrupt ca.key", func(t *testing.T, pki string) { write(t, pki, "ca.key", "") }, "ca.key"},
		{"ca.key missing", func(t *testing.T, pki string) { remove(t, pki, "ca.key") }, "ca.key"},
		{"ca.crt missing", func(t *testing.T, pki string) { remove(t, pki, "ca.crt") }, "ca.crt"},
		{"ca.key from another install", func(t *testing.T, pki string) {
			other := t.TempDir()
			mustLoad(t, Options{Dir: other, Now: clock(t0)})
			copyFile(t, filepath.Join(other, "pki", "ca.key"), filepath.Join(pki, "ca.key"))
		}, "ca.key"},
		{"ca.crt is a leaf", func(t *testing.T, pki string) {
			copyFile(t, filepath.Join(pki, "serving.crt"), filepath.Join(pki, "ca.crt"))
			copyFile(t, filepath.Join(pki, "serving.key"), filepath.Join(pki, "ca.key"))
		}, "ca.crt"},
		{"empty admin.token", func(t *testing.T, pki string) { write(t, pki, "admin.token", "\n") }, "admin.token"},
		{"short admin.token", func(t *testing.T, pki string) { write(t, pki, "admin.token", "secret") }, "admin.token"},
		{"admin.token with spaces", func(t *testing.T, pki string) {
			write(t, pki, "admin.token", strings.Repeat("ab cd ", 10))
		}, "admin.token"},
		{"corrupt serving.crt", func(t *testing.T, pki string) { write(t, pki, "serving.crt", "garbage") }, "serving.crt"},
		{"corrupt serving.key", func(t *testing.T, pki string) { write(t, pki, "serving.key", "garbage") }, "serving.key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pki := filepath.Join(dir, "pki")
			mustLoad(t, Options{Dir: dir, Now: clock(t0)})
			tc.damage(t, pki)
			before := snapshot(t, pki)

			_, err := LoadOrCreate(Options{Dir: dir, Now: clock(t0)})
			if err == nil {
				t.Fatal("LoadOrCreate succeeded, want error")
			}
			if want := filepath.Join(pki, tc.wantFile); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
			if after := snapshot(t, pki); after != before {
				t.Errorf("files changed on error:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestLoadOrCreateRejectsExpiredCA(t *testing.T) {
	dir := t.TempDir()
	mustLoad(t, Options{Dir: dir, Now: clock(t0)})
	_, err := LoadOrCreate(Options{Dir: dir, Now: clock(t0.Add(11 * 365 * 24 * time.Hour))})
	if err == nil || !strings.Contains(err.Error(), "ca.crt") || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("err = %v, want expiry error naming ca.crt", err)
	}
}

func TestLoadOrCreateOptionErrors(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"no dir", Options{}},
		{"host with a path", Options{Dir: t.TempDir(), Hosts: []string{"example.com/x"}}},
		{"host with a port", Options{Dir: t.TempDir(), Hosts: []string{"example.com:6443"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := LoadOrCreate(tc.opts); err == nil {
				t.Fatal("LoadOrCreate succeeded, want error")
			}
		})
	}
}

func TestGenerate(t *testing.T) {
	tests := []struct {
		name  string
		hosts []string
		check []string
	}{
		{"defaults", nil, []string{"127.0.0.1", "::1", "localhost"}},
		{"extra", []string{"10.0.0.1", "api.internal", "[fd00::1]"}, []string{"10.0.0.1", "api.internal", "fd00::1", "localhost"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Generate(tc.hosts, t0)
			if err != nil {
				t.Fatal(err)
			}
			ca := parseCA(t, c)
			if !ca.IsCA || ca.KeyUsage&x509.KeyUsageCertSign == 0 {
				t.Errorf("CA: IsCA=%v KeyUsage=%v, want CA with CertSign", ca.IsCA, ca.KeyUsage)
			}
			if got, want := ca.NotBefore, t0.Add(-time.Hour); !got.Equal(want) {
				t.Errorf("CA NotBefore = %v, want %v", got, want)
			}
			if got, want := ca.NotAfter, t0.AddDate(10, 0, 0); got.Sub(want).Abs() > 72*time.Hour {
				t.Errorf("CA NotAfter = %v, want about %v", got, want)
			}
			leaf := c.Serving.Leaf
			if got, want := leaf.Subject.CommonName, "setpoint-apiserver"; got != want {
				t.Errorf("serving CN = %q, want %q", got, want)
			}
			if got := leaf.ExtKeyUsage; len(got) != 1 || got[0] != x509.ExtKeyUsageServerAuth {
				t.Errorf("serving ExtKeyUsage = %v, want [ServerAuth]", got)
			}
			if leaf.IsCA {
				t.Error("serving cert is a CA")
			}
			if got, want := leaf.NotBefore, t0.Add(-time.Hour); !got.Equal(want) {
				t.Errorf("serving NotBefore = %v, want %v", got, want)
			}
			if got, want := leaf.NotAfter, t0.AddDate(1, 0, 0); got.Sub(want).Abs() > 24*time.Hour {
				t.Errorf("serving NotAfter = %v, want about %v", got, want)
			}
			for _, cert := range []*x509.Certificate{ca, leaf} {
				if got := cert.SerialNumber.BitLen(); got > 128 || got < 64 {
					t.Errorf("%s serial has %d bits, want random 128-bit", cert.Subject.CommonName, got)
				}
			}
			for _, h := range tc.check {
				verifyServing(t, c, h, t0)
			}
		})
	}
}

func TestGenerateIsUnique(t *testing.T) {
	a, err := Generate(nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(nil, t0)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.CAPEM, b.CAPEM) || a.AdminToken == b.AdminToken {
		t.Error("two Generate calls produced the same CA or token")
	}
}

func BenchmarkGenerate(b *testing.B) {
	now := time.Now()
	for b.Loop() {
		if _, err := Generate([]string{"api.example.com", "10.0.0.1"}, now); err != nil {
			b.Fatal(err)
		}
	}
}

// verifyServing checks the serving cert chains to the CA for host at now, the
// way a client would.
func verifyServing(t *testing.T, c *Credentials, host string, now time.Time) {
	t.Helper()
	pool, err := c.CertPool()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(c.Serving.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		host = ip.String()
	}
	_, err = leaf.Verify(x509.VerifyOptions{
		DNSName:     host,
		Roots:       pool,
		CurrentTime: now,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	if err != nil {
		t.Errorf("serving cert does not verify for %s: %v", host, err)
	}
}

func parseCA(t *testing.T, c *Credentials) *x509.Certificate {
	t.Helper()
	block, rest := pem.Decode(c.CAPEM)
	if block == nil || block.Type != "CERTIFICATE" || len(rest) != 0 {
		t.Fatalf("CAPEM is not exactly one PEM certificate: %q", c.CAPEM)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// snapshot summarises a directory's names and contents for equality checks.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(e.Name() + ":" + string(data) + ";")
	}
	return b.String()
}

// The loopback token lives only as long as the process: a restart mints a
// new one and nothing in the data directory holds it.
func TestLoopbackTokenNotStored(t *testing.T) {
	dir := t.TempDir()
	a := mustLoad(t, Options{Dir: dir, Now: clock(t0)})
	b := mustLoad(t, Options{Dir: dir, Now: clock(t0)})
	if a.AdminToken != b.AdminToken {
		t.Fatal("admin token changed between loads")
	}
	if a.LoopbackToken == "" || a.LoopbackToken == b.LoopbackToken {
		t.Errorf("loopback tokens %q and %q: want a fresh one per load", a.LoopbackToken, b.LoopbackToken)
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), b.LoopbackToken) {
			t.Errorf("%s holds the loopback token", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

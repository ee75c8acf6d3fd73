package e2e_test

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/internal/csrtest"
)

// csrRequester lets alice ask for certificates and read the answers, and
// approve for no signer: what a user who may only request holds.
const csrRequester = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: csr-requester}
rules:
- {apiGroups: [certificates.k8s.io], resources: [certificatesigningrequests], verbs: [create, get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-csr-requester}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: csr-requester}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
`

// csrManifest writes a new key and a CertificateSigningRequest named
// name for subject to the kube-apiserver-client signer; it returns the
// manifest and the key's file.
func csrManifest(t *testing.T, name string, subject pkix.Name) (manifest, keyFile string) {
	t.Helper()
	csr, key := csrtest.Request(t, &x509.CertificateRequest{Subject: subject})
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile = writeFile(t, name+".key", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})))
	req := base64.StdEncoding.EncodeToString(csr)
	manifest = fmt.Sprintf(`apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: %s}
spec:
  request: %s
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  usages: [client auth]
`, name, req)
	return manifest, keyFile
}

// TestCertificateSigningRequests gets a client certificate the
// Kubernetes way: alice asks with her own client certificate, an admin
// approves with kubectl certificate approve, the built-in signer issues
// it, and the server then takes it as the request's subject. Denial and
// the refusals are kube-apiserver's (the oracle's words).
func TestCertificateSigningRequests(t *testing.T) {
	bin := kubectlPath(t)
	srv := startFreshServer(t)
	admin := newKubectl(t, bin, srv)
	admin.createFile(t, csrRequester)
	alice := userKubectl(t, admin, srv, "alice", "dev")

	manifest, keyFile := csrManifest(t, "alice-laptop", pkix.Name{CommonName: "alice-laptop", Organization: []string{"qa"}})
	if got := alice.ok(t, "create", "-f", writeFile(t, "csr.yaml", manifest)); strings.TrimSpace(got) != "certificatesigningrequest.certificates.k8s.io/alice-laptop created" {
		t.Errorf("create: %q", got)
	}
	tb := parseTable(t, admin.ok(t, "get", "csr"))
	if want := "NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION"; strings.Join(tb.header, " ") != want {
		t.Errorf("columns %q, want %q", tb.header, want)
	}
	row, ok := tb.row(map[string]string{"NAME": "alice-laptop"})
	if !ok || row["SIGNERNAME"] != "kubernetes.io/kube-apiserver-client" || row["REQUESTOR"] != "alice" ||
		row["REQUESTEDDURATION"] != "24h" || row["CONDITION"] != "Pending" {
		t.Errorf("row %v, want alice's pending request for 24h", row)
	}

	t.Run("alice cannot approve her own request", func(t *testing.T) {
		got := strings.TrimSpace(alice.fails(t, "certificate", "approve", "alice-laptop"))
		want := `Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "alice-laptop" is forbidden: User "alice" cannot update resource "certificatesigningrequests/approval" in API group "certificates.k8s.io" at the cluster scope`
		if got != want {
			t.Errorf("got %q\nwant %q", got, want)
		}
		// With the approval subresource but no right to approve for
		// the signer, the certificates admission refuses.
		admin.ok(t, "create", "clusterrole", "csr-decider", "--verb=update", "--resource=certificatesigningrequests/approval")
		admin.ok(t, "create", "clusterrolebinding", "alice-csr-decider", "--clusterrole=csr-decider", "--user=alice")
		got = strings.TrimSpace(alice.fails(t, "certificate", "approve", "alice-laptop"))
		want = `Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "alice-laptop" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"`
		if got != want {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})

	if got := strings.TrimSpace(admin.ok(t, "certificate", "approve", "alice-laptop")); got != "certificatesigningrequest.certificates.k8s.io/alice-laptop approved" {
		t.Errorf("approve: %q", got)
	}
	var certPEM string
	waitWithin(t, 30*time.Second, "the certificate to be issued", func() (string, bool) {
		certPEM = admin.ok(t, "get", "csr", "alice-laptop", "-o", "jsonpath={.status.certificate}")
		return certPEM, certPEM != ""
	})
	row, _ = parseTable(t, admin.ok(t, "get", "csr", "alice-laptop")).row(map[string]string{"NAME": "alice-laptop"})
	if row["CONDITION"] != "Approved,Issued" {
		t.Errorf("condition %q, want Approved,Issued", row["CONDITION"])
	}
	cert, err := base64.StdEncoding.DecodeString(certPEM)
	if err != nil {
		t.Fatal(err)
	}

	// A kubeconfig with the issued certificate is the request's subject.
	issued := &kubectl{bin: bin, kubeconfig: filepath.Join(t.TempDir(), "issued.kubeconfig"), home: t.TempDir()}
	raw, err := os.ReadFile(alice.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(issued.kubeconfig, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	issued.ok(t, "config", "set-credentials", "laptop", "--embed-certs",
		"--client-certificate="+writeFile(t, "laptop.crt", string(cert)), "--client-key="+keyFile)
	issued.ok(t, "config", "set-context", "--current", "--user=laptop")
	who := parseTable(t, issued.ok(t, "auth", "whoami"))
	if row, ok := who.row(map[string]string{"ATTRIBUTE": "Username"}); !ok || row["VALUE"] != "alice-laptop" {
		t.Errorf("whoami: %v, want Username alice-laptop", who.rows)
	}
	if row, ok := who.row(map[string]string{"ATTRIBUTE": "Groups"}); !ok || row["VALUE"] != "[qa system:authenticated]" {
		t.Errorf("whoami: %v, want Groups [qa system:authenticated]", who.rows)
	}

	t.Run("deny", func(t *testing.T) {
		manifest, _ := csrManifest(t, "alice-phone", pkix.Name{CommonName: "alice-phone"})
		alice.ok(t, "create", "-f", writeFile(t, "csr.yaml", manifest))
		if got := strings.TrimSpace(admin.ok(t, "certificate", "deny", "alice-phone")); got != "certificatesigningrequest.certificates.k8s.io/alice-phone denied" {
			t.Errorf("deny: %q", got)
		}
		row, _ := parseTable(t, admin.ok(t, "get", "csr", "alice-phone")).row(map[string]string{"NAME": "alice-phone"})
		if row["CONDITION"] != "Denied" {
			t.Errorf("condition %q, want Denied", row["CONDITION"])
		}
		if got := strings.TrimSpace(admin.fails(t, "certificate", "approve", "alice-phone")); got != `error: certificate signing request "alice-phone" is already Denied` {
			t.Errorf("approving a denied request: %q", got)
		}
		if got := admin.ok(t, "get", "csr", "alice-phone", "-o", "jsonpath={.status.certificate}"); got != "" {
			t.Errorf("a denied request was issued a certificate")
		}
	})

	t.Run("no certificate for system:masters", func(t *testing.T) {
		manifest, _ := csrManifest(t, "root", pkix.Name{CommonName: "root", Organization: []string{"system:masters"}})
		file := writeFile(t, "csr.yaml", manifest)
		got := strings.TrimSpace(alice.fails(t, "create", "-f", file))
		want := `Error from server (Forbidden): error when creating "` + file + `": certificatesigningrequests.certificates.k8s.io "root" is forbidden: ` +
			`use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`
		if got != want {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})
}

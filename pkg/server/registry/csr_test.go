package registry

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/internal/csrtest"
	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// csrPEM is a signed PKCS#10 request for subject, PEM encoded.
func csrPEM(t *testing.T, subject pkix.Name) []byte {
	t.Helper()
	req, _ := csrtest.Request(t, &x509.CertificateRequest{Subject: subject})
	return req
}

// certPEM is a self-signed certificate, PEM encoded: content the status
// accepts.
func certPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "x"}, NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// csrObject is a valid request for alice from the kube-apiserver-client
// signer, as a client sends it, with changes applied.
func csrObject(t *testing.T, change func(obj map[string]any)) map[string]any {
	t.Helper()
	obj := map[string]any{
		"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
		"metadata": map[string]any{"name": "alice"},
		"spec": map[string]any{
			"request":    base64.StdEncoding.EncodeToString(csrPEM(t, pkix.Name{CommonName: "alice", Organization: []string{"dev"}})),
			"signerName": "kubernetes.io/kube-apiserver-client",
			"usages":     []any{"client auth"},
		},
	}
	if change != nil {
		change(obj)
	}
	return obj
}

// condition is a status condition as stored.
func condition(typ, status, updated, transition string) map[string]any {
	c := map[string]any{"type": typ, "status": status}
	if updated != "" {
		c["lastUpdateTime"] = updated
	}
	if transition != "" {
		c["lastTransitionTime"] = transition
	}
	return c
}

func withConditions(conds ...map[string]any) func(map[string]any) {
	return func(obj map[string]any) {
		list := make([]any, len(conds))
		for i, c := range conds {
			list[i] = c
		}
		nestedMap(obj, true, "status")["conditions"] = list
	}
}

func errorList(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// TestCSRCaller: whatever the request says, the requestor is the caller.
func TestCSRCaller(t *testing.T) {
	spoofed := func(obj map[string]any) {
		spec := nestedMap(obj, true, "spec")
		spec["username"], spec["uid"] = "root", "x"
		spec["groups"] = []any{"system:masters"}
		spec["extra"] = map[string]any{"k": []any{"v"}}
	}
	tests := []struct {
		name string
		ctx  context.Context
		want map[string]any // the spec's requestor fields
	}{
		{
			name: "a user",
			ctx: user.WithInfo(context.Background(), authenticationv1.UserInfo{
				Username: "alice", UID: "u-1", Groups: []string{"dev", "system:authenticated"},
				Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a", "b"}},
			}),
			want: map[string]any{
				"username": "alice", "uid": "u-1", "groups": []any{"dev", "system:authenticated"},
				"extra": map[string]any{"scopes": []any{"a", "b"}},
			},
		},
		{
			name: "a user without uid, groups or extra",
			ctx:  user.WithInfo(context.Background(), authenticationv1.UserInfo{Username: "bob"}),
			want: map[string]any{"username": "bob"},
		},
		{name: "no caller", ctx: context.Background(), want: map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := csrObject(t, spoofed)
			csrStrategy{}.PrepareForCaller(tt.ctx, obj)
			got := map[string]any{}
			for _, k := range []string{"username", "uid", "groups", "extra"} {
				if v, ok := nestedMap(obj, false, "spec")[k]; ok {
					got[k] = v
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCSRCreate checks a new request: undecided whatever it says, and
// each of kube's create rules, with the oracle's messages.
func TestCSRCreate(t *testing.T) {
	obj := csrObject(t, withConditions(condition("Approved", "True", "", "")))
	nestedMap(obj, true, "status")["certificate"] = base64.StdEncoding.EncodeToString(certPEM(t))
	if errs := (csrStrategy{}).PrepareForCreate(time.Now(), obj); len(errs) > 0 {
		t.Fatalf("valid request: %v", errs)
	}
	if got := obj["status"]; !reflect.DeepEqual(got, map[string]any{}) {
		t.Errorf("status: got %v, want it empty", got)
	}

	set := func(path string, v any) func(map[string]any) {
		return func(obj map[string]any) {
			keys := strings.Split(path, ".")
			nestedMap(obj, true, keys[:len(keys)-1]...)[keys[len(keys)-1]] = v
		}
	}
	drop := func(key string) func(map[string]any) {
		return func(obj map[string]any) { delete(nestedMap(obj, false, "spec"), key) }
	}
	tests := []struct {
		name   string
		change func(map[string]any)
		want   []string
	}{
		{"not PEM", set("spec.request", base64.StdEncoding.EncodeToString([]byte("hello\n"))),
			[]string{`spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xa}: PEM block type must be CERTIFICATE REQUEST`}},
		{"no usages", drop("usages"), []string{"spec.usages: Required value"}},
		{"unknown and repeated usages", set("spec.usages", []any{"client auth", "client auth", "foo"}), []string{
			`spec.usages[2]: Unsupported value: "foo": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"`,
			`spec.usages[1]: Duplicate value: "client auth"`,
		}},
		{"no signer", drop("signerName"), []string{"spec.signerName: Required value"}},
		{"signer without path", set("spec.signerName", "kubernetes.io"),
			[]string{`spec.signerName: Invalid value: "kubernetes.io": must be a fully qualified domain and path of the form 'example.com/signer-name'`}},
		{"legacy signer", set("spec.signerName", "kubernetes.io/legacy-unknown"),
			[]string{`spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version`}},
		{"too short", set("spec.expirationSeconds", int64(599)),
			[]string{`spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)`}},
		{"shortest", set("spec.expirationSeconds", int64(600)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errorList(csrStrategy{}.PrepareForCreate(time.Now(), csrObject(t, tt.change)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestCSRUsagesSorted: kube lists the supported usages sorted.
func TestCSRUsagesSorted(t *testing.T) {
	if !slices.IsSorted(csrUsages) || len(slices.Compact(slices.Clone(csrUsages))) != 23 {
		t.Errorf("usages %q: want kube's 23, sorted", csrUsages)
	}
}

func TestSignerNameErrors(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"example.com/signer", nil},
		{"example.com/ns.name", nil},
		{"kubernetes.io/kube-apiserver-client", nil},
		{"", []string{"spec.signerName: Required value"}},
		{"a/b/c", []string{`spec.signerName: Invalid value: "a/b/c": must be a fully qualified domain and path of the form 'example.com/signer-name'`}},
		{"example/signer", []string{`spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots`}},
		{"Example.com/signer", []string{`spec.signerName: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{"example.com/Signer", []string{`spec.signerName: Invalid value: "Signer": validating label "Signer": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"example.com/" + strings.Repeat("a", 63) + "." + strings.Repeat("b", 253) + "." + strings.Repeat("c", 253), []string{"spec.signerName: Too long: may not be more than 571 bytes"}},
	}
	for _, tt := range tests {
		got := errorList(signerNameErrors(field.NewPath("spec", "signerName"), tt.name))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%.40q: got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestCSRUpdate: the object's own endpoint changes metadata only; the
// store keeps the status, the strategy the spec.
func TestCSRUpdate(t *testing.T) {
	old := csrObject(t, nil)
	obj := csrObject(t, func(obj map[string]any) {
		nestedMap(obj, true, "spec")["username"] = "root"
		nestedMap(obj, true, "metadata")["labels"] = map[string]any{"a": "b"}
	})
	if errs := (csrStrategy{}).PrepareForUpdate(time.Now(), obj, old); len(errs) > 0 {
		t.Fatal(errs)
	}
	if !reflect.DeepEqual(obj["spec"], old["spec"]) {
		t.Errorf("spec: got %v, want the stored %v", obj["spec"], old["spec"])
	}
	if got := nestedMap(obj, false, "metadata")["labels"]; got == nil {
		t.Error("the labels written were dropped")
	}
}

// statusOf is obj's status in typed-JSON form, for comparisons.
func statusOf(t *testing.T, obj map[string]any) string {
	t.Helper()
	b, err := json.Marshal(obj["status"])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCSRStatusWrite checks the status subresource: it keeps the
// decision, stamps times, sets the certificate once, and refuses what
// kube refuses with the oracle's messages.
func TestCSRStatusWrite(t *testing.T) {
	const (
		then    = "2026-01-01T00:00:00Z"
		nowText = "2026-11-27T10:00:00Z"
	)
	now, _ := time.Parse(time.RFC3339, nowText)
	s := csrStrategy{now: func() time.Time { return now }}
	cert := base64.StdEncoding.EncodeToString(certPEM(t))
	approved := withConditions(condition("Approved", "True", then, then))
	withCert := func(data string) func(map[string]any) {
		return func(obj map[string]any) { nestedMap(obj, true, "status")["certificate"] = data }
	}
	both := func(fs ...func(map[string]any)) func(map[string]any) {
		return func(obj map[string]any) {
			for _, f := range fs {
				f(obj)
			}
		}
	}
	tests := []subresourceWrite{
		{
			name: "signer issues", old: approved, write: both(approved, withCert(cert)),
			wantStatus: `{"certificate":"` + cert + `","conditions":[{"lastTransitionTime":"` + then + `","lastUpdateTime":"` + then + `","status":"True","type":"Approved"}]}`,
		},
		{
			name: "the decision is kept", old: approved,
			write:      withConditions(map[string]any{"type": "Approved", "status": "True", "message": "changed"}),
			wantStatus: `{"conditions":[{"lastTransitionTime":"` + then + `","lastUpdateTime":"` + then + `","status":"True","type":"Approved"}]}`,
		},
		{
			name: "a failure is stamped", old: approved,
			write: withConditions(condition("Approved", "True", then, then), map[string]any{"type": "Failed", "status": "True", "reason": "SignerValidationFailure"}),
			wantStatus: `{"conditions":[{"lastTransitionTime":"` + then + `","lastUpdateTime":"` + then + `","status":"True","type":"Approved"},` +
				`{"lastTransitionTime":"` + nowText + `","lastUpdateTime":"` + nowText + `","reason":"SignerValidationFailure","status":"True","type":"Failed"}]}`,
		},
		{name: "approving", write: approved, want: []string{`status.conditions: Forbidden: updates may not add a condition of type "Approved"`}},
		{name: "undeciding", old: approved, write: withConditions(), want: []string{`status.conditions: Forbidden: updates may not remove a condition of type "Approved"`}},
		{name: "junk certificate", old: approved, write: both(approved, withCert(base64.StdEncoding.EncodeToString([]byte("junk")))),
			want: []string{`status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block`}},
		{name: "another certificate", old: both(approved, withCert(cert)), write: both(approved, withCert(base64.StdEncoding.EncodeToString(certPEM(t)))),
			want: []string{"status.certificate: Forbidden: updates may not modify existing certificate content"}},
		{name: "bad statuses", old: approved, write: withConditions(condition("Approved", "True", then, then), condition("Custom", "Maybe", "", ""), condition("Failed", "False", "", "")),
			want: []string{
				`status.conditions[1].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"`,
				`status.conditions[2].status: Unsupported value: "False": supported values: "True"`,
			}},
		{name: "a condition twice", old: approved, write: withConditions(condition("Approved", "True", then, then), condition("X", "True", "", ""), condition("X", "False", "", "")),
			want: []string{`status.conditions[2].type: Duplicate value: "X"`}},
		{name: "a condition without type", old: approved, write: withConditions(condition("Approved", "True", then, then), condition("", "True", "", "")),
			want: []string{"status.conditions[1].type: Required value"}},
	}
	runSubresourceWrites(t, tests, "signerName", "example.com/other", s.PrepareForStatusUpdate)
}

// TestCSRApprovalWrite checks the approval subresource: it takes the
// conditions of the write and nothing else.
func TestCSRApprovalWrite(t *testing.T) {
	const (
		then    = "2026-01-01T00:00:00Z"
		nowText = "2026-11-27T10:00:00Z"
	)
	now, _ := time.Parse(time.RFC3339, nowText)
	s := csrStrategy{now: func() time.Time { return now }}
	cert := base64.StdEncoding.EncodeToString(certPEM(t))
	tests := []subresourceWrite{
		{
			name:       "approve",
			write:      withConditions(map[string]any{"type": "Approved", "status": "True", "reason": "KubectlApprove"}),
			wantStatus: `{"conditions":[{"lastTransitionTime":"` + nowText + `","lastUpdateTime":"` + nowText + `","reason":"KubectlApprove","status":"True","type":"Approved"}]}`,
		},
		{
			name: "the certificate is not the approver's",
			old:  func(obj map[string]any) { nestedMap(obj, true, "status")["certificate"] = cert },
			write: func(obj map[string]any) {
				withConditions(condition("Denied", "True", then, ""))(obj)
				nestedMap(obj, true, "status")["certificate"] = nil
			},
			wantStatus: `{"certificate":"` + cert + `","conditions":[{"lastTransitionTime":"` + nowText + `","lastUpdateTime":"` + then + `","status":"True","type":"Denied"}]}`,
		},
		{
			name: "a transition time carried over", old: withConditions(condition("Approved", "True", then, then)),
			write:      withConditions(map[string]any{"type": "Approved", "status": "True", "message": "again"}),
			wantStatus: `{"conditions":[{"lastTransitionTime":"` + then + `","lastUpdateTime":"` + nowText + `","message":"again","status":"True","type":"Approved"}]}`,
		},
		{
			name: "deny what is approved", old: withConditions(condition("Approved", "True", then, then)),
			write: withConditions(condition("Approved", "True", then, then), condition("Denied", "True", "", "")),
			want:  []string{`status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive`},
		},
		{
			name: "withdraw a denial", old: withConditions(condition("Denied", "True", then, then)), write: withConditions(),
			want: []string{`status.conditions: Forbidden: updates may not remove a condition of type "Denied"`},
		},
		{
			name: "approve with status False", write: withConditions(condition("Approved", "False", "", "")),
			want: []string{`status.conditions[0].status: Unsupported value: "False": supported values: "True"`},
		},
	}
	runSubresourceWrites(t, tests, "usages", []any{"server auth"}, s.PrepareForApprovalUpdate)
}

// subresourceWrite is a write through the status or approval subresource:
// the stored object and the written one, each a CSR changed by a
// function, and the errors and the status (when wantStatus is set) the
// strategy leaves.
type subresourceWrite struct {
	name       string
	old, write func(map[string]any)
	want       []string
	wantStatus string // "" skips the check
}

// runSubresourceWrites runs the writes through prepare, each with the
// spec field specField changed to specValue in the write, which prepare
// must put back.
func runSubresourceWrites(t *testing.T, tests []subresourceWrite, specField string, specValue any, prepare func(obj, old map[string]any) field.ErrorList) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := csrObject(t, tt.old)
			obj := csrObject(t, tt.write)
			nestedMap(obj, true, "spec")[specField] = specValue
			errs := prepare(obj, old)
			if got := errorList(errs); !slices.Equal(got, tt.want) {
				t.Errorf("errors: got %q\nwant %q", got, tt.want)
			}
			if !reflect.DeepEqual(obj["spec"], old["spec"]) {
				t.Errorf("spec: got %v, want the stored one", obj["spec"])
			}
			if got := statusOf(t, obj); tt.wantStatus != "" && got != tt.wantStatus {
				t.Errorf("status: got %s\nwant %s", got, tt.wantStatus)
			}
		})
	}
}

// csrGuarded is the CertificateSigningRequest resource checked by a real
// RBAC authorizer: amy approves for kubernetes.io/kube-apiserver-client,
// ann for every kubernetes.io signer, sid signs for example.com/signer.
func csrGuarded(t *testing.T) *Resource {
	t.Helper()
	role := func(name, verb string, signers ...string) rbacv1.ClusterRole {
		return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{{
			Verbs: []string{verb}, APIGroups: []string{certificatesGroup}, Resources: []string{"signers"}, ResourceNames: signers,
		}}}
	}
	bind := func(role, u string) rbacv1.ClusterRoleBinding {
		return rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: u}, RoleRef: rbacv1.RoleRef{APIGroup: rbacGroup, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacGroup, Name: u}},
		}
	}
	objs := rbac.Objects{
		ClusterRoles: []rbacv1.ClusterRole{
			role("client-approver", "approve", "kubernetes.io/kube-apiserver-client"),
			role("kubernetes-approver", "approve", "kubernetes.io/*"),
			role("example-signer", "sign", "example.com/signer"),
		},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{bind("client-approver", "amy"), bind("kubernetes-approver", "ann"), bind("example-signer", "sid")},
	}
	a := rbac.NewAuthorizer(func(context.Context) (rbac.Objects, error) { return objs, nil })
	for _, r := range BuiltinWith(BuiltinOptions{Authorizer: a, Rules: a, Roles: objectRoles(objs)}) {
		if r.Group == certificatesGroup {
			return r
		}
	}
	t.Fatal("no certificatesigningrequests")
	return nil
}

// TestCSRAdmission checks who may create, approve and sign, with the
// oracle's refusals.
func TestCSRAdmission(t *testing.T) {
	res := csrGuarded(t)
	admit := res.Strategy.(ValidatedAdmitStrategy)
	signer := func(name string) func(map[string]any) {
		return func(obj map[string]any) { nestedMap(obj, true, "spec")["signerName"] = name }
	}
	masters := func(obj map[string]any) {
		nestedMap(obj, true, "spec")["request"] = base64.StdEncoding.EncodeToString(csrPEM(t, pkix.Name{CommonName: "m", Organization: []string{"dev", "system:masters"}}))
	}
	approve := withConditions(condition("Approved", "True", "", ""))
	issue := func(obj map[string]any) {
		withConditions(condition("Approved", "True", "", ""))(obj)
		nestedMap(obj, true, "status")["certificate"] = base64.StdEncoding.EncodeToString(certPEM(t))
	}
	tests := []struct {
		name       string
		ctx        context.Context
		sub        Subresource
		old, write func(map[string]any) // old nil: a create
		want       string
	}{
		{name: "create", ctx: caller("joe"), write: nil},
		{name: "create for system:masters", ctx: caller("root", "system:masters"), write: masters,
			want: "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed"},
		{name: "system:masters for another signer", ctx: caller("joe"), write: func(obj map[string]any) { masters(obj); signer("example.com/signer")(obj) }},
		{name: "approve without the right", ctx: caller("joe"), sub: SubresourceApproval, old: signer("kubernetes.io/kube-apiserver-client"), write: approve,
			want: `user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"`},
		{name: "approve for the signer", ctx: caller("amy"), sub: SubresourceApproval, old: signer("kubernetes.io/kube-apiserver-client"), write: approve},
		{name: "approve for the domain", ctx: caller("ann"), sub: SubresourceApproval, old: signer("kubernetes.io/kubelet-serving"), write: approve},
		{name: "approve for another signer", ctx: caller("amy"), sub: SubresourceApproval, old: signer("kubernetes.io/kubelet-serving"), write: approve,
			want: `user not permitted to approve requests with signerName "kubernetes.io/kubelet-serving"`},
		{name: "judged by the stored signer", ctx: caller("amy"), sub: SubresourceApproval, old: signer("example.com/signer"),
			write: func(obj map[string]any) { approve(obj); signer("kubernetes.io/kube-apiserver-client")(obj) },
			want:  `user not permitted to approve requests with signerName "example.com/signer"`},
		{name: "approve as system:masters", ctx: caller("root", "system:masters"), sub: SubresourceApproval, write: approve},
		{name: "sign without the right", ctx: caller("amy"), sub: SubresourceStatus, old: signer("example.com/signer"), write: func(obj map[string]any) { issue(obj); signer("example.com/signer")(obj) },
			want: `user not permitted to sign requests with signerName "example.com/signer"`},
		{name: "sign for the signer", ctx: caller("sid"), sub: SubresourceStatus, old: signer("example.com/signer"), write: func(obj map[string]any) { issue(obj); signer("example.com/signer")(obj) }},
		{name: "a status write that changes nothing", ctx: caller("joe"), sub: SubresourceStatus, old: signer("example.com/signer"), write: signer("example.com/signer")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := csrObject(t, tt.write)
			var old map[string]any
			if tt.old != nil || tt.sub != SubresourceNone {
				old = csrObject(t, tt.old)
			}
			err := admit.AdmitValidated(tt.ctx, tt.sub, obj, old)
			var got string
			if err != nil {
				got = err.Error()
				if fe := (*ForbiddenError)(nil); !errors.As(err, &fe) {
					t.Errorf("error %T, want a *ForbiddenError", err)
				}
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCSRUnguarded: without an authorizer, as kube's AlwaysAllow, anyone
// approves; the system:masters rule holds all the same.
func TestCSRUnguarded(t *testing.T) {
	admit := csrStrategy{}
	approve := withConditions(condition("Approved", "True", "", ""))
	if err := admit.AdmitValidated(caller("joe"), SubresourceApproval, csrObject(t, approve), csrObject(t, nil)); err != nil {
		t.Errorf("approving: %v", err)
	}
	masters := csrObject(t, func(obj map[string]any) {
		nestedMap(obj, true, "spec")["request"] = base64.StdEncoding.EncodeToString(csrPEM(t, pkix.Name{CommonName: "m", Organization: []string{"system:masters"}}))
	})
	if err := admit.AdmitValidated(caller("joe"), SubresourceNone, masters, nil); err == nil {
		t.Error("a client certificate for system:masters was admitted")
	}
}

// TestCSRTable checks the cells kube prints.
func TestCSRTable(t *testing.T) {
	res := csrGuarded(t)
	var names []string
	for _, c := range res.Columns {
		names = append(names, c.Name)
	}
	if want := []string{"Age", "SignerName", "Requestor", "RequestedDuration", "Condition"}; !slices.Equal(names, want) {
		t.Errorf("columns %q, want %q", names, want)
	}
	cert := base64.StdEncoding.EncodeToString(certPEM(t))
	tests := []struct {
		name     string
		change   func(map[string]any)
		duration string
		cond     string
	}{
		{"pending", nil, "<none>", "Pending"},
		{"a day", func(obj map[string]any) { nestedMap(obj, true, "spec")["expirationSeconds"] = int64(86400) }, "24h", "Pending"},
		{"an hour and a half", func(obj map[string]any) { nestedMap(obj, true, "spec")["expirationSeconds"] = int64(5400) }, "90m", "Pending"},
		{"issued", func(obj map[string]any) {
			withConditions(condition("Approved", "True", "", ""))(obj)
			nestedMap(obj, true, "status")["certificate"] = cert
		}, "<none>", "Approved,Issued"},
		{"failed", withConditions(condition("Approved", "True", "", ""), condition("Failed", "True", "", "")), "<none>", "Approved,Failed"},
		{"denied wins", withConditions(condition("Approved", "True", "", ""), condition("Denied", "True", "", "")), "<none>", "Denied"},
	}
	for _, tt := range tests {
		obj := csrObject(t, tt.change)
		if got := requestedDuration(obj); got != tt.duration {
			t.Errorf("%s: duration %q, want %q", tt.name, got, tt.duration)
		}
		if got := csrCondition(obj); got != tt.cond {
			t.Errorf("%s: condition %q, want %q", tt.name, got, tt.cond)
		}
	}
	if got := signerNameCell(map[string]any{}); got != "<none>" {
		t.Errorf("signer of a bare object: %q", got)
	}
}

// TestCSRRoundTrip: a served request decodes as kube's type.
func TestCSRRoundTrip(t *testing.T) {
	obj := csrObject(t, nil)
	csrStrategy{}.PrepareForCaller(caller("alice"), obj)
	if errs := (csrStrategy{}).PrepareForCreate(time.Now(), obj); len(errs) > 0 {
		t.Fatal(errs)
	}
	typed, errs := typedCSR(obj)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	back, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back["spec"], obj["spec"]) {
		t.Errorf("spec changed in a round trip: %v\n%v", back["spec"], obj["spec"])
	}
}

package apiserver_test

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"net/http"
	"reflect"
	"testing"

	"github.com/setpoint-dev/setpoint/internal/csrtest"
)

const csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests"

// csrBody is a CertificateSigningRequest for subject from the
// kube-apiserver-client signer, as kubectl sends one.
func csrBody(t *testing.T, name string, subject pkix.Name) map[string]any {
	t.Helper()
	req, _ := csrtest.Request(t, &x509.CertificateRequest{Subject: subject})
	return map[string]any{
		"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"request":    base64.StdEncoding.EncodeToString(req),
			"signerName": "kubernetes.io/kube-apiserver-client",
			"usages":     []any{"client auth"},
			// Ignored: the requestor is whoever creates the request.
			"username": "root", "groups": []any{"system:masters"},
		},
		// Ignored: a request starts undecided.
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Approved", "status": "True"}}},
	}
}

// withCondition returns csr with one more status condition.
func withCondition(csr map[string]any, typ string) map[string]any {
	status, _ := csr["status"].(map[string]any)
	if status == nil {
		status = map[string]any{}
		csr["status"] = status
	}
	conds, _ := status["conditions"].([]any)
	status["conditions"] = append(conds, map[string]any{"type": typ, "status": "True", "reason": "Test"})
	return csr
}

// clusterRule grants verbs on resources of certificates.k8s.io, by name
// when names are given.
func clusterRule(verbs, resources []any, names ...any) map[string]any {
	r := map[string]any{"verbs": verbs, "apiGroups": []any{"certificates.k8s.io"}, "resources": resources}
	if len(names) > 0 {
		r["resourceNames"] = names
	}
	return r
}

// grant gives user a cluster role of rules.
func (c *client) grant(user string, rules ...map[string]any) {
	c.t.Helper()
	list := make([]any, len(rules))
	for i, r := range rules {
		list[i] = r
	}
	c.must(http.StatusCreated, "POST", rbacAPI+"/clusterroles", rbacObject("ClusterRole", map[string]any{
		"metadata": map[string]any{"name": user}, "rules": list,
	}))
	c.must(http.StatusCreated, "POST", rbacAPI+"/clusterrolebindings", rbacObject("ClusterRoleBinding", map[string]any{
		"metadata": map[string]any{"name": user},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": user},
		"subjects": []any{userSubject(user)},
	}))
}

// TestCSRRequests follows a request through the API: created as its
// requestor, decided through approval by someone allowed to approve for
// its signer, issued through status by someone allowed to sign, with
// kube-apiserver's refusals (the oracle's, for the same policy).
func TestCSRRequests(t *testing.T) {
	c := newClient(t)
	rw := []any{"get", "list", "create", "update", "patch"}
	c.grant("alice", clusterRule(rw, []any{"certificatesigningrequests"}))
	c.grant("mallory", clusterRule(rw, []any{"certificatesigningrequests", "certificatesigningrequests/approval", "certificatesigningrequests/status"}))
	c.grant("amy",
		clusterRule(rw, []any{"certificatesigningrequests", "certificatesigningrequests/approval"}),
		clusterRule([]any{"approve"}, []any{"signers"}, "kubernetes.io/kube-apiserver-client"))
	alice, mallory, amy := as("alice", "dev"), as("mallory"), as("amy")

	csr := c.must(http.StatusCreated, "POST", csrs, csrBody(t, "alice", pkix.Name{CommonName: "alice", Organization: []string{"dev"}}), alice...)
	spec := csr["spec"].(map[string]any)
	if spec["username"] != "alice" || !reflect.DeepEqual(spec["groups"], []any{"dev", "system:authenticated"}) {
		t.Errorf("requestor %v %v, want alice in dev and system:authenticated", spec["username"], spec["groups"])
	}
	if !reflect.DeepEqual(csr["status"], map[string]any{}) {
		t.Errorf("status %v, want empty", csr["status"])
	}
	// kube records no field of a create: the object's endpoint owns
	// neither spec nor status.
	if mf := meta(csr)["managedFields"]; mf != nil {
		t.Errorf("managedFields %v, want none", mf)
	}
	cols, rows := tableOf(t, c.must(http.StatusOK, "GET", csrs, nil, "Accept", tableAccept))
	if want := []string{"Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("columns %v, want %v", cols, want)
	}
	if len(rows) != 1 || !reflect.DeepEqual([]any{rows[0][0], rows[0][2], rows[0][3], rows[0][4], rows[0][5]},
		[]any{"alice", "kubernetes.io/kube-apiserver-client", "alice", "<none>", "Pending"}) {
		t.Errorf("rows %v", rows)
	}

	approve := withCondition(c.must(http.StatusOK, "GET", csrs+"/alice/approval", nil), "Approved")
	refusals := []struct {
		name    string
		headers []string
		method  string
		path    string
		body    any
		code    int
		want    string
	}{
		{"approving without the subresource", alice, "PUT", "/alice/approval", approve, http.StatusForbidden,
			`certificatesigningrequests.certificates.k8s.io "alice" is forbidden: User "alice" cannot update resource "certificatesigningrequests/approval" in API group "certificates.k8s.io" at the cluster scope`},
		{"approving without approve on the signer", mallory, "PUT", "/alice/approval", approve, http.StatusForbidden,
			`certificatesigningrequests.certificates.k8s.io "alice" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"`},
		{"approving through status", nil, "PUT", "/alice/status", approve, http.StatusUnprocessableEntity,
			`CertificateSigningRequest.certificates.k8s.io "alice" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"`},
		{"a client certificate for system:masters", alice, "POST", "", csrBody(t, "root", pkix.Name{CommonName: "root", Organization: []string{"system:masters"}}), http.StatusForbidden,
			`certificatesigningrequests.certificates.k8s.io "root" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`},
	}
	for _, tt := range refusals {
		r := c.do(tt.method, csrs+tt.path, tt.body, tt.headers...)
		if got := str(r.json(t)["message"]); r.code != tt.code || got != tt.want {
			t.Errorf("%s: got %d %q, want %d %q", tt.name, r.code, got, tt.code, tt.want)
		}
	}

	// amy may approve for the signer; an approval changes the
	// conditions only.
	approve["spec"].(map[string]any)["usages"] = []any{"server auth"}
	approved := c.must(http.StatusOK, "PUT", csrs+"/alice/approval", approve, amy...)
	if got := approved["spec"].(map[string]any)["usages"]; !reflect.DeepEqual(got, []any{"client auth"}) {
		t.Errorf("usages %v after an approval, want unchanged", got)
	}
	cond := approved["status"].(map[string]any)["conditions"].([]any)[0].(map[string]any)
	if cond["lastUpdateTime"] == nil || cond["lastTransitionTime"] == nil {
		t.Errorf("approval condition %v, want its times stamped", cond)
	}
	// Approved once, approved for good: a merge patch dropping it is
	// refused.
	r := c.do("PATCH", csrs+"/alice/approval", `{"status":{"conditions":null}}`, append([]string{"Content-Type", "application/merge-patch+json"}, amy...)...)
	if want := `CertificateSigningRequest.certificates.k8s.io "alice" is invalid: status.conditions: Forbidden: updates may not remove a condition of type "Approved"`; r.code != http.StatusUnprocessableEntity || str(r.json(t)["message"]) != want {
		t.Errorf("withdrawing the approval: got %d %s", r.code, r.body)
	}

	// Adding the certificate takes sign on the signer.
	issued := c.must(http.StatusOK, "GET", csrs+"/alice/status", nil)
	issued["status"].(map[string]any)["certificate"] = base64.StdEncoding.EncodeToString(c.srv.Credentials.CAPEM)
	r = c.do("PUT", csrs+"/alice/status", issued, mallory...)
	if want := `certificatesigningrequests.certificates.k8s.io "alice" is forbidden: user not permitted to sign requests with signerName "kubernetes.io/kube-apiserver-client"`; r.code != http.StatusForbidden || str(r.json(t)["message"]) != want {
		t.Errorf("signing without sign: got %d %s", r.code, r.body)
	}
	c.must(http.StatusOK, "PUT", csrs+"/alice/status", issued)

	// The object's own endpoint changes metadata and nothing else.
	got := c.must(http.StatusOK, "GET", csrs+"/alice", nil)
	got["metadata"].(map[string]any)["labels"] = map[string]any{"team": "a"}
	got["spec"].(map[string]any)["username"] = "root"
	delete(got, "status")
	got = c.must(http.StatusOK, "PUT", csrs+"/alice", got, alice...)
	if got["spec"].(map[string]any)["username"] != "alice" || got["status"].(map[string]any)["certificate"] == nil || meta(got)["labels"] == nil {
		t.Errorf("after a PUT of the object: %v", got)
	}
	_, rows = tableOf(t, c.must(http.StatusOK, "GET", csrs+"?fieldSelector=spec.signerName%3Dkubernetes.io%2Fkube-apiserver-client", nil, "Accept", tableAccept))
	if len(rows) != 1 || rows[0][5] != "Approved,Issued" {
		t.Errorf("rows %v, want alice Approved,Issued", rows)
	}
	if list := c.must(http.StatusOK, "GET", csrs+"?fieldSelector=spec.signerName%3Dexample.com%2Fx", nil); len(list["items"].([]any)) != 0 {
		t.Errorf("another signer's requests: %v", list["items"])
	}
}

// TestCSRDiscovery: the approval subresource is listed as kube lists it.
func TestCSRDiscovery(t *testing.T) {
	c := newClient(t)
	list := c.must(http.StatusOK, "GET", "/apis/certificates.k8s.io/v1", nil)
	got := list["resources"].([]any)
	want := []any{
		map[string]any{"name": "certificatesigningrequests", "singularName": "certificatesigningrequest", "namespaced": false, "kind": "CertificateSigningRequest",
			"verbs": []any{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}, "shortNames": []any{"csr"}, "storageVersionHash": "95fRKMXA+00="},
		map[string]any{"name": "certificatesigningrequests/approval", "singularName": "", "namespaced": false, "kind": "CertificateSigningRequest", "verbs": []any{"get", "patch", "update"}},
		map[string]any{"name": "certificatesigningrequests/status", "singularName": "", "namespaced": false, "kind": "CertificateSigningRequest", "verbs": []any{"get", "patch", "update"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %s\nwant %s", mustJSON(got), mustJSON(want))
	}
}

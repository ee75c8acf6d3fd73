package e2e_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestServiceAccountTokens walks what a workload's identity goes
// through with kubectl: `kubectl create token` for the default service
// account the controller makes in a new namespace, then `kubectl
// --token`: whoami, a refusal worded as kube-apiserver's, a request
// allowed once a role is bound, and a token bound to a pod that stops
// working with the pod.
func TestServiceAccountTokens(t *testing.T) {
	bin := kubectlPath(t)
	srv := startFreshServer(t)
	admin := newKubectl(t, bin, srv)
	const ns = "sa-e2e"
	const user = "system:serviceaccount:" + ns + ":default"
	admin.ok(t, "create", "namespace", ns)
	waitWithin(t, 30*time.Second, "the default service account", func() (string, bool) {
		r := admin.run(t, "get", "serviceaccount", "default", "-n", ns)
		return r.stderr, r.err == nil
	})
	uid := admin.ok(t, "get", "serviceaccount", "default", "-n", ns, "-o", "jsonpath={.metadata.uid}")
	token := strings.TrimSpace(admin.ok(t, "create", "token", "default", "-n", ns, "--duration", "20m"))
	as := func(token string, args ...string) result {
		return admin.run(t, append([]string{"--token", token}, args...)...)
	}

	t.Run("whoami", func(t *testing.T) {
		r := as(token, "auth", "whoami")
		if r.err != nil {
			t.Fatal(r)
		}
		got := map[string]string{}
		for _, row := range parseTable(t, r.stdout).rows {
			got[row["ATTRIBUTE"]] = row["VALUE"]
		}
		want := map[string]string{
			"Username": user,
			"UID":      uid,
			"Groups":   "[system:serviceaccounts system:serviceaccounts:" + ns + " system:authenticated]",
			"Extra: authentication.kubernetes.io/credential-id": "[JTI=" + tokenClaim(t, token, "jti") + "]",
		}
		if len(got) != len(want) {
			t.Errorf("got %v, want %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: got %q, want %q", k, got[k], v)
			}
		}
	})

	t.Run("refused until bound", func(t *testing.T) {
		refusal := func(resource string) string {
			return `Error from server (Forbidden): ` + resource + ` is forbidden: User "` + user + `" cannot list resource "` + resource + `" in API group "" in the namespace "` + ns + `"`
		}
		r := as(token, "get", "configmaps", "-n", ns)
		if got := strings.TrimSpace(r.stderr); r.err == nil || got != refusal("configmaps") {
			t.Errorf("before the binding: got %q (%v), want %q", got, r.err, refusal("configmaps"))
		}
		admin.ok(t, "create", "role", "cm-reader", "--verb=get,list", "--resource=configmaps", "-n", ns)
		admin.ok(t, "create", "rolebinding", "default-reads-cm", "--role=cm-reader", "--serviceaccount="+ns+":default", "-n", ns)
		admin.ok(t, "create", "configmap", "settings", "--from-literal=color=blue", "-n", ns)
		if r := as(token, "get", "configmap", "settings", "-n", ns, "-o", "jsonpath={.data.color}"); r.err != nil || r.stdout != "blue" {
			t.Errorf("after the binding: got %v", r)
		}
		r = as(token, "get", "secrets", "-n", ns)
		if got := strings.TrimSpace(r.stderr); r.err == nil || got != refusal("secrets") {
			t.Errorf("secrets: got %q (%v), want %q", got, r.err, refusal("secrets"))
		}
	})

	t.Run("create token refusals", func(t *testing.T) {
		tests := []struct {
			args []string
			want string
		}{
			{[]string{"create", "token", "nope", "-n", ns}, `error: failed to create token: serviceaccounts "nope" not found`},
			{[]string{"create", "token", "default", "-n", ns, "--duration", "5s"}, `error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 5: may not specify a duration less than 10 minutes`},
			{[]string{"create", "token", "default", "-n", ns, "--bound-object-kind", "Pod", "--bound-object-name", "nope"}, `error: failed to create token: pods "nope" not found`},
		}
		for _, tt := range tests {
			if got := strings.TrimSpace(admin.fails(t, tt.args...)); got != tt.want {
				t.Errorf("kubectl %s: got %q, want %q", strings.Join(tt.args, " "), got, tt.want)
			}
		}
	})

	t.Run("bound to a pod", func(t *testing.T) {
		admin.ok(t, "run", "web", "--image=nginx", "-n", ns)
		podUID := admin.ok(t, "get", "pod", "web", "-n", ns, "-o", "jsonpath={.metadata.uid}")
		podToken := strings.TrimSpace(admin.ok(t, "create", "token", "default", "-n", ns, "--bound-object-kind", "Pod", "--bound-object-name", "web"))
		r := as(podToken, "auth", "whoami", "-o", "jsonpath={.status.userInfo.extra}")
		if r.err != nil {
			t.Fatal(r)
		}
		var extra map[string][]string
		if err := json.Unmarshal([]byte(r.stdout), &extra); err != nil {
			t.Fatalf("whoami extra %q: %v", r.stdout, err)
		}
		if got := extra["authentication.kubernetes.io/pod-name"]; len(got) != 1 || got[0] != "web" {
			t.Errorf("got pod-name %v, want [web]", got)
		}
		if got := extra["authentication.kubernetes.io/pod-uid"]; len(got) != 1 || got[0] != podUID {
			t.Errorf("got pod-uid %v, want [%s]", got, podUID)
		}
		admin.ok(t, "delete", "pod", "web", "-n", ns, "--grace-period=0", "--force")
		waitWithin(t, 10*time.Second, "the deleted pod's token to be refused", func() (string, bool) {
			r := as(podToken, "auth", "whoami")
			return r.stderr, r.err != nil && strings.TrimSpace(r.stderr) == "error: You must be logged in to the server (Unauthorized)"
		})
		// The service account's other tokens are not bound to the pod.
		if r := as(token, "auth", "whoami"); r.err != nil {
			t.Errorf("the unbound token after the pod went: %v", r)
		}
	})
}

// tokenClaim reads one string claim of a token's payload.
func tokenClaim(t *testing.T, token, name string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	s, _ := claims[name].(string)
	return s
}

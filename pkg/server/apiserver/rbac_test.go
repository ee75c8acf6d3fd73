package apiserver_test

import (
	"net/http"
	"reflect"
	"testing"
)

const (
	rbacAPI  = "/apis/rbac.authorization.k8s.io/v1"
	authzAPI = "/apis/authorization.k8s.io/v1"
)

func rbacObject(kind string, m map[string]any) map[string]any {
	m["apiVersion"], m["kind"] = "rbac.authorization.k8s.io/v1", kind
	return m
}

// TestRBACObjects writes the four RBAC kinds as kubectl does and reads
// them back: names with colons, defaulted bindings, kube's tables, a
// PUT that creates, a roleRef that cannot change.
func TestRBACObjects(t *testing.T) {
	c := newClient(t)
	c.createNamespace("team")
	roles := rbacAPI + "/namespaces/team/roles"
	bindings := rbacAPI + "/namespaces/team/rolebindings"

	c.must(http.StatusCreated, "POST", roles, rbacObject("Role", map[string]any{
		"metadata": map[string]any{"name": "system:team:reader"},
		"rules":    []any{map[string]any{"verbs": []any{"get", "list"}, "apiGroups": []any{""}, "resources": []any{"pods"}}},
	}))
	c.must(http.StatusCreated, "POST", rbacAPI+"/clusterroles", rbacObject("ClusterRole", map[string]any{
		"metadata": map[string]any{"name": "probe"},
		"rules":    []any{map[string]any{"verbs": []any{"get"}, "nonResourceURLs": []any{"/healthz", "/readyz"}}},
	}))
	b := c.must(http.StatusCreated, "POST", bindings, rbacObject("RoleBinding", map[string]any{
		"metadata": map[string]any{"name": "readers"},
		"roleRef":  map[string]any{"kind": "Role", "name": "system:team:reader"},
		"subjects": []any{
			map[string]any{"kind": "User", "name": "u1"}, map[string]any{"kind": "User", "name": "u2"},
			map[string]any{"kind": "Group", "name": "g1"},
			map[string]any{"kind": "ServiceAccount", "name": "sa1"},
			map[string]any{"kind": "ServiceAccount", "name": "sa2", "namespace": "other"},
		},
	}))
	if got := b["roleRef"].(map[string]any)["apiGroup"]; got != "rbac.authorization.k8s.io" {
		t.Errorf("roleRef.apiGroup %v, want defaulted", got)
	}
	if got := b["subjects"].([]any)[0].(map[string]any)["apiGroup"]; got != "rbac.authorization.k8s.io" {
		t.Errorf("a User subject's apiGroup %v, want defaulted", got)
	}
	// A PUT of a missing binding creates it, as kube's AllowCreateOnUpdate.
	c.must(http.StatusCreated, "PUT", rbacAPI+"/clusterrolebindings/probers", rbacObject("ClusterRoleBinding", map[string]any{
		"metadata": map[string]any{"name": "probers"},
		"roleRef":  map[string]any{"kind": "ClusterRole", "name": "probe"},
		"subjects": []any{map[string]any{"kind": "Group", "name": "system:authenticated"}},
	}))

	tests := []struct {
		path     string
		wantCols []string
		wantRow  []any // the cells before and after the time, which varies
	}{
		{roles, []string{"Name", "Created At"}, []any{"system:team:reader"}},
		{bindings, []string{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"}, []any{"readers", "Role/system:team:reader", "u1, u2", "g1", "/sa1, other/sa2"}},
		{rbacAPI + "/clusterrolebindings", []string{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"}, []any{"probers", "ClusterRole/probe", "", "system:authenticated", ""}},
	}
	for _, tt := range tests {
		cols, rows := tableOf(t, c.must(http.StatusOK, "GET", tt.path, nil, "Accept", tableAccept))
		if !reflect.DeepEqual(cols, tt.wantCols) {
			t.Errorf("%s: columns %v, want %v", tt.path, cols, tt.wantCols)
		}
		// The server's own RBAC policy is listed too.
		var row []any
		for _, r := range rows {
			if r[0] == tt.wantRow[0] {
				row = r
			}
		}
		if row == nil {
			t.Fatalf("%s: no row %v in %v", tt.path, tt.wantRow[0], rows)
		}
		timeAt := 1
		if len(tt.wantCols) > 2 {
			timeAt = 2
		}
		if ts, _ := row[timeAt].(string); ts == "" {
			t.Errorf("%s: time cell %v, want one", tt.path, row[timeAt])
		}
		got := append(append([]any{}, row[:timeAt]...), row[timeAt+1:]...)
		if !reflect.DeepEqual(got, tt.wantRow) {
			t.Errorf("%s: cells %v, want %v", tt.path, got, tt.wantRow)
		}
	}

	// kube's message for a changed roleRef, its internal type in Go
	// syntax (the oracle's).
	r := c.do("PATCH", bindings+"/readers", `{"roleRef":{"name":"other"}}`, "Content-Type", "application/merge-patch+json")
	want := `RoleBinding.rbac.authorization.k8s.io "readers" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef`
	if r.code != http.StatusUnprocessableEntity || str(r.json(t)["message"]) != want {
		t.Errorf("roleRef change: %d %s, want 422 %q", r.code, r.body, want)
	}

	// Server-side apply creates and updates through the same checks.
	const applied = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"applied"},"rules":[{"verbs":["get"],"apiGroups":["apps"],"resources":["deployments"]}]}`
	c.must(http.StatusCreated, "PATCH", rbacAPI+"/clusterroles/applied?fieldManager=test", applied, "Content-Type", "application/apply-patch+yaml")
	c.must(http.StatusOK, "PATCH", rbacAPI+"/clusterroles/applied?fieldManager=test", applied, "Content-Type", "application/apply-patch+yaml")

	// A dry run answers and stores nothing.
	c.must(http.StatusCreated, "POST", rbacAPI+"/clusterroles?dryRun=All", rbacObject("ClusterRole", map[string]any{"metadata": map[string]any{"name": "dry"}}))
	c.must(http.StatusNotFound, "GET", rbacAPI+"/clusterroles/dry", nil)

	c.must(http.StatusOK, "DELETE", bindings+"/readers", nil)
	c.must(http.StatusOK, "DELETE", roles+"/system:team:reader", nil)
}

// TestRBACInvalid answers invalid RBAC objects with kube-apiserver
// v1.33.13's 422s (the oracle's messages).
func TestRBACInvalid(t *testing.T) {
	c := newClient(t)
	c.createNamespace("team")
	tests := []struct {
		name, path string
		body       map[string]any
		want       string
	}{
		{
			name: "a slash in a name", path: rbacAPI + "/namespaces/team/roles",
			body: rbacObject("Role", map[string]any{"metadata": map[string]any{"name": "system:x/y"}}),
			want: `Role.rbac.authorization.k8s.io "system:x/y" is invalid: metadata.name: Invalid value: "system:x/y": may not contain '/'`,
		},
		{
			name: "a url in a role", path: rbacAPI + "/namespaces/team/roles",
			body: rbacObject("Role", map[string]any{"metadata": map[string]any{"name": "r"}, "rules": []any{map[string]any{"verbs": []any{"get"}, "nonResourceURLs": []any{"/x"}}}}),
			want: `Role.rbac.authorization.k8s.io "r" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs`,
		},
		{
			name: "a cluster binding of a role", path: rbacAPI + "/clusterrolebindings",
			body: rbacObject("ClusterRoleBinding", map[string]any{"metadata": map[string]any{"name": "crb%"}, "roleRef": map[string]any{"kind": "Role", "name": ""}, "subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "sa"}}}),
			want: `ClusterRoleBinding.rbac.authorization.k8s.io "crb%" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", roleRef.name: Required value, subjects[0].namespace: Required value]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", tt.path, tt.body)
			if r.code != http.StatusUnprocessableEntity || str(r.json(t)["message"]) != tt.want {
				t.Errorf("got %d %s\nwant 422 %q", r.code, r.body, tt.want)
			}
		})
	}
}

// TestAccessReviews puts questions to the server's authorizer through
// the four review kinds, as kubectl auth can-i and webhooks do.
func TestAccessReviews(t *testing.T) {
	c := newClient(t)
	c.createNamespace("team")
	review := func(kind string, m map[string]any) map[string]any {
		m["apiVersion"], m["kind"] = "authorization.k8s.io/v1", kind
		return m
	}

	// system:masters is allowed everything under any authorizer.
	got := c.must(http.StatusCreated, "POST", authzAPI+"/subjectaccessreviews?fieldManager=test", review("SubjectAccessReview", map[string]any{
		"spec": map[string]any{"user": "x", "groups": []any{"system:masters"}, "nonResourceAttributes": map[string]any{"path": "/healthz", "verb": "get"}},
	}))
	if want := map[string]any{"allowed": true}; !reflect.DeepEqual(got["status"], want) {
		t.Errorf("status %v, want %v", got["status"], want)
	}
	// The request comes back, with the managed fields kube records.
	mf, _ := meta(got)["managedFields"].([]any)
	if len(mf) != 1 || mf[0].(map[string]any)["manager"] != "test" {
		t.Errorf("managed fields %v, want the request's", meta(got)["managedFields"])
	}
	if got["spec"].(map[string]any)["user"] != "x" {
		t.Errorf("answer %v, want the spec asked", got)
	}

	// The admin asks about itself.
	got = c.must(http.StatusCreated, "POST", authzAPI+"/selfsubjectaccessreviews", review("SelfSubjectAccessReview", map[string]any{
		"spec": map[string]any{"resourceAttributes": map[string]any{"verb": "delete", "resource": "nodes"}},
	}))
	if got["status"].(map[string]any)["allowed"] != true {
		t.Errorf("the admin may not delete nodes: %v", got["status"])
	}
	got = c.must(http.StatusCreated, "POST", authzAPI+"/selfsubjectrulesreviews", review("SelfSubjectRulesReview", map[string]any{
		"spec": map[string]any{"namespace": "team"},
	}))
	if st := got["status"].(map[string]any); st["incomplete"] != false || len(st["resourceRules"].([]any)) == 0 {
		t.Errorf("the admin's rules %v, want some", st)
	}

	tests := []struct {
		name, path string
		body       map[string]any
		wantCode   int
		want       string
	}{
		{
			name: "no one to ask about", path: authzAPI + "/subjectaccessreviews",
			body:     review("SubjectAccessReview", map[string]any{"spec": map[string]any{"nonResourceAttributes": map[string]any{"path": "/x", "verb": "get"}}}),
			wantCode: http.StatusUnprocessableEntity,
			want:     `.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified`,
		},
		{
			name: "a self review with a name", path: authzAPI + "/selfsubjectaccessreviews",
			body:     review("SelfSubjectAccessReview", map[string]any{"metadata": map[string]any{"name": "x"}, "spec": map[string]any{}}),
			wantCode: http.StatusUnprocessableEntity,
			want: `.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, ` +
				`metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), ` +
				`DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string(nil), Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), ` +
				`Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty]`,
		},
		{
			name: "a local review of another namespace", path: authzAPI + "/namespaces/team/localsubjectaccessreviews",
			body:     review("LocalSubjectAccessReview", map[string]any{"spec": map[string]any{"user": "u", "resourceAttributes": map[string]any{"namespace": "other", "verb": "get", "resource": "pods"}}}),
			wantCode: http.StatusUnprocessableEntity,
			want:     `.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`,
		},
		{
			name: "a local review naming another namespace", path: authzAPI + "/namespaces/team/localsubjectaccessreviews",
			body:     review("LocalSubjectAccessReview", map[string]any{"metadata": map[string]any{"namespace": "kube-system"}, "spec": map[string]any{"user": "u", "resourceAttributes": map[string]any{"namespace": "team", "verb": "get", "resource": "pods"}}}),
			wantCode: http.StatusBadRequest,
			want:     "the namespace of the provided object does not match the namespace sent on the request",
		},
		{
			name: "rules without a namespace", path: authzAPI + "/selfsubjectrulesreviews",
			body:     review("SelfSubjectRulesReview", map[string]any{"spec": map[string]any{}}),
			wantCode: http.StatusBadRequest,
			want:     "no namespace on request",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", tt.path, tt.body)
			if r.code != tt.wantCode || str(r.json(t)["message"]) != tt.want {
				t.Errorf("got %d %s\nwant %d %q", r.code, r.body, tt.wantCode, tt.want)
			}
		})
	}

	// A local review in its namespace, which need not exist (kube lets
	// reviews through its namespace check).
	got = c.must(http.StatusCreated, "POST", authzAPI+"/namespaces/nowhere/localsubjectaccessreviews", review("LocalSubjectAccessReview", map[string]any{
		"spec": map[string]any{"user": "x", "groups": []any{"system:masters"}, "resourceAttributes": map[string]any{"namespace": "nowhere", "verb": "get", "resource": "pods"}},
	}))
	if meta(got)["namespace"] != "nowhere" || got["status"].(map[string]any)["allowed"] != true {
		t.Errorf("local review answered %v", got)
	}
}

// TestRBACEscalation writes roles and bindings as a user who holds only
// some rules, and gets kube-apiserver v1.33.13's answers (the oracle's,
// for the same policy and requests).
func TestRBACEscalation(t *testing.T) {
	c := newClient(t)
	c.createNamespace("team")
	carol := []string{"Impersonate-User", "carol"}
	clusterRole := func(name string, rules ...any) map[string]any {
		return rbacObject("ClusterRole", map[string]any{"metadata": map[string]any{"name": name}, "rules": rules})
	}
	rule := func(verbs, groups, resources []any) map[string]any {
		return map[string]any{"verbs": verbs, "apiGroups": groups, "resources": resources}
	}
	c.must(http.StatusCreated, "POST", rbacAPI+"/clusterroles", clusterRole("team-rbac-writer",
		rule([]any{"create", "update", "patch", "get"}, []any{"rbac.authorization.k8s.io"}, []any{"roles", "rolebindings"})))
	c.must(http.StatusCreated, "POST", rbacAPI+"/clusterroles", clusterRole("team-pod-reader",
		rule([]any{"get", "list"}, []any{""}, []any{"pods"})))
	c.must(http.StatusCreated, "POST", rbacAPI+"/clusterroles", clusterRole("team-secret-reader",
		rule([]any{"get"}, []any{""}, []any{"secrets"})))
	for _, role := range []string{"team-rbac-writer", "team-pod-reader"} {
		c.must(http.StatusCreated, "POST", rbacAPI+"/namespaces/team/rolebindings", rbacObject("RoleBinding", map[string]any{
			"metadata": map[string]any{"name": "carol-" + role},
			"roleRef":  map[string]any{"kind": "ClusterRole", "name": role},
			"subjects": []any{map[string]any{"kind": "User", "name": "carol"}},
		}))
	}
	role := func(meta map[string]any, resources ...any) map[string]any {
		return rbacObject("Role", map[string]any{"metadata": meta, "rules": []any{rule([]any{"get", "list"}, []any{""}, resources)}})
	}
	binding := func(name, kind, role string) map[string]any {
		return rbacObject("RoleBinding", map[string]any{
			"metadata": map[string]any{"name": name},
			"roleRef":  map[string]any{"kind": kind, "name": role},
			"subjects": []any{map[string]any{"kind": "User", "name": "dave"}},
		})
	}
	const notHeld = "user \"carol\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n"
	roles, bindings := rbacAPI+"/namespaces/team/roles", rbacAPI+"/namespaces/team/rolebindings"
	tests := []struct {
		name, method, path string
		body               any
		wantCode           int
		want               string // the refusal's message
	}{
		{name: "rules held", method: "POST", path: roles, body: role(map[string]any{"name": "pods"}, "pods"), wantCode: http.StatusCreated},
		{
			name: "rules not held", method: "POST", path: roles, body: role(map[string]any{"name": "r1"}, "pods", "secrets"),
			wantCode: http.StatusForbidden,
			want:     `roles.rbac.authorization.k8s.io "r1" is forbidden: ` + notHeld + `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`,
		},
		{
			name: "rules not held, generated name", method: "POST", path: roles, body: role(map[string]any{"generateName": "r1-"}, "secrets"),
			wantCode: http.StatusForbidden,
			want:     `roles.rbac.authorization.k8s.io is forbidden: ` + notHeld + `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`,
		},
		{
			name: "rules not held, dry run", method: "POST", path: roles + "?dryRun=All", body: role(map[string]any{"name": "r1"}, "secrets"),
			wantCode: http.StatusForbidden,
			want:     `roles.rbac.authorization.k8s.io "r1" is forbidden: ` + notHeld + `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`,
		},
		{
			// kube checks before it validates.
			name: "rules not held, bad name", method: "POST", path: roles, body: role(map[string]any{"name": "a/b"}, "secrets"),
			wantCode: http.StatusForbidden,
			want:     `roles.rbac.authorization.k8s.io "a/b" is forbidden: ` + notHeld + `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`,
		},
		{
			name: "widened by a patch", method: "PATCH", path: roles + "/pods",
			body:     `{"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]}`,
			wantCode: http.StatusForbidden,
			want:     `roles.rbac.authorization.k8s.io "pods" is forbidden: ` + notHeld + `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
		},
		{name: "bind a role whose rules are held", method: "POST", path: bindings, body: binding("b1", "ClusterRole", "team-pod-reader"), wantCode: http.StatusCreated},
		{
			name: "bind a role whose rules are not held", method: "POST", path: bindings, body: binding("b2", "ClusterRole", "team-secret-reader"),
			wantCode: http.StatusForbidden,
			want:     `rolebindings.rbac.authorization.k8s.io "b2" is forbidden: ` + notHeld + `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
		},
		{
			name: "bind a missing role", method: "POST", path: bindings, body: binding("b3", "ClusterRole", "nope"),
			wantCode: http.StatusNotFound, want: `rolebindings.rbac.authorization.k8s.io "nope" not found`,
		},
		{
			name: "bind a missing namespace role", method: "POST", path: bindings, body: binding("b4", "Role", "nope"),
			wantCode: http.StatusNotFound, want: `rolebindings.rbac.authorization.k8s.io "nope" not found`,
		},
		{
			name: "bind an unknown kind", method: "POST", path: bindings, body: binding("b5", "Foo", "nope"),
			wantCode: http.StatusInternalServerError, want: `unsupported role reference kind: "Foo"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := carol
			if tt.method == "PATCH" {
				headers = append([]string{"Content-Type", "application/merge-patch+json"}, carol...)
			}
			r := c.do(tt.method, tt.path, tt.body, headers...)
			if r.code != tt.wantCode {
				t.Fatalf("got %d %s, want %d", r.code, r.body, tt.wantCode)
			}
			if tt.want != "" && str(r.json(t)["message"]) != tt.want {
				t.Errorf("message\n got %q\nwant %q", r.json(t)["message"], tt.want)
			}
		})
	}
	// Nothing refused was stored, dry run or not.
	c.must(http.StatusNotFound, "GET", roles+"/r1", nil)

	// escalate on one ClusterRole by name: allowed through the URL that
	// names it (an apply), not through a POST, which names none.
	c.must(http.StatusCreated, "POST", rbacAPI+"/clusterroles", clusterRole("escalate-named",
		map[string]any{"verbs": []any{"escalate"}, "apiGroups": []any{"rbac.authorization.k8s.io"}, "resources": []any{"clusterroles"}, "resourceNames": []any{"named"}},
		rule([]any{"create", "patch"}, []any{"rbac.authorization.k8s.io"}, []any{"clusterroles"})))
	c.must(http.StatusCreated, "POST", rbacAPI+"/clusterrolebindings", rbacObject("ClusterRoleBinding", map[string]any{
		"metadata": map[string]any{"name": "erin"},
		"roleRef":  map[string]any{"kind": "ClusterRole", "name": "escalate-named"},
		"subjects": []any{map[string]any{"kind": "User", "name": "erin"}},
	}))
	erin := []string{"Impersonate-User", "erin"}
	const everything = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"named"},"rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]}`
	r := c.do("POST", rbacAPI+"/clusterroles", everything, erin...)
	if want := `clusterroles.rbac.authorization.k8s.io "named" is forbidden: user "erin" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` +
		"\n" + `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`; r.code != http.StatusForbidden || str(r.json(t)["message"]) != want {
		t.Errorf("POST: got %d %s, want 403 %q", r.code, r.body, want)
	}
	c.must(http.StatusCreated, "PATCH", rbacAPI+"/clusterroles/named?fieldManager=erin", everything, append([]string{"Content-Type", "application/apply-patch+yaml"}, erin...)...)
}

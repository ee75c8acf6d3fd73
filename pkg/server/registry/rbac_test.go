package registry

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rbacObject decodes a JSON rbac.authorization.k8s.io/v1 object of the
// resource as a request body is decoded.
func rbacObject(t *testing.T, plural, body string) map[string]any {
	t.Helper()
	obj, _, err := builtin(rbacGroup, plural).Decode([]byte(body), FieldStrict)
	if err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return obj
}

func aggregate(errs field.ErrorList) string {
	if agg := errs.ToAggregate(); agg != nil {
		return agg.Error()
	}
	return ""
}

// TestRBACValidation holds the four kinds to kube's rules. The wanted
// messages are kube-apiserver v1.33.13's (the oracle's answers to the
// same bodies, without the metadata errors the store adds).
func TestRBACValidation(t *testing.T) {
	tests := []struct {
		name, plural, body string
		want               string
	}{
		{
			name: "role rules", plural: "roles",
			body: `{"metadata":{"name":"r","namespace":"d"},"rules":[{},{"verbs":["get"],"nonResourceURLs":["/x"],"apiGroups":[""]},{"verbs":["get"],"resourceNames":["a"]}]}`,
			want: `[rules[0].verbs: Required value: verbs must contain at least one value, rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource, rules[1].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs, rules[1].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs, rules[2].apiGroups: Required value: resource rules must supply at least one api group, rules[2].resources: Required value: resource rules must supply at least one resource]`,
		},
		{
			name: "valid role", plural: "roles",
			body: `{"metadata":{"name":"r","namespace":"d"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"resourceNames":["p"]}]}`,
		},
		{
			name: "cluster role may name urls", plural: "clusterroles",
			body: `{"metadata":{"name":"system:c:r"},"rules":[{"verbs":["get"],"nonResourceURLs":["/healthz","/api/*"]}]}`,
		},
		{
			name: "cluster role mixes urls and resources, bad selectors", plural: "clusterroles",
			body: `{"metadata":{"name":"c"},"rules":[{"verbs":["get"],"nonResourceURLs":["/x"],"resources":["pods"]}],"aggregationRule":{"clusterRoleSelectors":[{"matchExpressions":[{"key":"a","operator":"In"}]},{"matchLabels":{"a b":"c"}}]}}`,
			want: `[rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs, aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when ` + "`operator`" + ` is 'In' or 'NotIn', aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector., aggregationRule.clusterRoleSelectors[1].matchLabels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), aggregationRule.clusterRoleSelectors[1]: Invalid value: "null": invalid label selector.]`,
		},
		{
			name: "aggregation without selectors", plural: "clusterroles",
			body: `{"metadata":{"name":"agg"},"aggregationRule":{"clusterRoleSelectors":[]}}`,
			want: `aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil`,
		},
		{
			name: "role binding", plural: "rolebindings",
			body: `{"metadata":{"name":"b","namespace":"d"},"roleRef":{"kind":"Foo","name":"a/b","apiGroup":"x"},"subjects":[{"kind":"ServiceAccount","name":"Bad_Name","apiGroup":"x"},{"kind":"User"},{"kind":"Group","name":"g","apiGroup":"y"},{"kind":"Robot","name":"r"}]}`,
			want: `[roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io", roleRef.kind: Unsupported value: "Foo": supported values: "Role", "ClusterRole", roleRef.name: Invalid value: "a/b": may not contain '/', subjects[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), subjects[0].apiGroup: Unsupported value: "x": supported values: "", subjects[1].name: Required value, subjects[2].apiGroup: Unsupported value: "y": supported values: "rbac.authorization.k8s.io", subjects[3].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]`,
		},
		{
			name: "role binding to a role, service account in its namespace", plural: "rolebindings",
			body: `{"metadata":{"name":"b","namespace":"d"},"roleRef":{"kind":"Role","name":"system:r"},"subjects":[{"kind":"ServiceAccount","name":"sa"},{"kind":"User","name":"u"}]}`,
		},
		{
			name: "cluster role binding", plural: "clusterrolebindings",
			body: `{"metadata":{"name":"crb"},"roleRef":{"kind":"Role","name":""},"subjects":[{"kind":"ServiceAccount","name":"sa"}]}`,
			want: `[roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", roleRef.name: Required value, subjects[0].namespace: Required value]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := rbacObject(t, tt.plural, tt.body)
			got := aggregate(builtin(rbacGroup, tt.plural).Strategy.PrepareForCreate(time.Time{}, obj))
			if got != tt.want {
				t.Errorf("errors\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestRBACUpdateValidation: kube runs the create rules twice on update,
// so each cause is listed twice (the message once), and a binding's
// roleRef never changes.
func TestRBACUpdateValidation(t *testing.T) {
	const binding = `{"metadata":{"name":"b","namespace":"d"},"roleRef":{"kind":"Role","name":"r2"},"subjects":[{"kind":"User","name":"u"}]}`
	tests := []struct {
		name, plural, old, body string
		want                    string
		wantCauses              int
	}{
		{
			name: "roleRef changes", plural: "rolebindings", old: binding,
			body:       `{"metadata":{"name":"b","namespace":"d"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r3"},"subjects":[{"kind":"User","name":"u"}]}`,
			want:       `roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"r3"}: cannot change roleRef`,
			wantCauses: 1,
		},
		{
			name: "roleRef kept without its defaulted group", plural: "rolebindings", old: binding,
			body: binding,
		},
		{
			name: "bad subject twice", plural: "rolebindings", old: binding,
			body:       `{"metadata":{"name":"b","namespace":"d"},"roleRef":{"kind":"Role","name":"r2"},"subjects":[{"kind":"Robot","name":"x"}]}`,
			want:       `subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`,
			wantCauses: 2,
		},
		{
			name: "bad rule twice", plural: "roles",
			old:        `{"metadata":{"name":"r","namespace":"d"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]}`,
			body:       `{"metadata":{"name":"r","namespace":"d"},"rules":[{"verbs":[]}]}`,
			want:       `[rules[0].verbs: Required value: verbs must contain at least one value, rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource]`,
			wantCauses: 6,
		},
		{
			// kube lets a ClusterRole keep expression values it has
			// since tightened when the stored one has them; building
			// the selector still fails.
			name: "stored bad label value", plural: "clusterroles",
			old:        `{"metadata":{"name":"c"},"aggregationRule":{"clusterRoleSelectors":[{"matchExpressions":[{"key":"a","operator":"In","values":["-x-"]}]}]}}`,
			body:       `{"metadata":{"name":"c"},"aggregationRule":{"clusterRoleSelectors":[{"matchExpressions":[{"key":"a","operator":"In","values":["-x-"]}]}]}}`,
			want:       `aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.`,
			wantCauses: 2,
		},
		{
			name: "new bad label value", plural: "clusterroles",
			old:        `{"metadata":{"name":"c"}}`,
			body:       `{"metadata":{"name":"c"},"aggregationRule":{"clusterRoleSelectors":[{"matchExpressions":[{"key":"a","operator":"In","values":["-x-"]}]}]}}`,
			want:       `[aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[0]: Invalid value: "-x-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.]`,
			wantCauses: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := rbacObject(t, tt.plural, tt.old)
			defaultBinding(old)
			obj := rbacObject(t, tt.plural, tt.body)
			errs := builtin(rbacGroup, tt.plural).Strategy.PrepareForUpdate(time.Time{}, obj, old)
			if got := aggregate(errs); got != tt.want {
				t.Errorf("errors\n got %s\nwant %s", got, tt.want)
			}
			if len(errs) != tt.wantCauses {
				t.Errorf("%d causes, want %d", len(errs), tt.wantCauses)
			}
		})
	}
}

// TestBindingDefaults: kube fills in the role's API group and a User's
// or Group's; a ServiceAccount's stays the core group.
func TestBindingDefaults(t *testing.T) {
	obj := rbacObject(t, "clusterrolebindings", `{"metadata":{"name":"b"},"roleRef":{"kind":"ClusterRole","name":"view"},`+
		`"subjects":[{"kind":"User","name":"u"},{"kind":"Group","name":"g"},{"kind":"ServiceAccount","name":"sa","namespace":"n"}]}`)
	if errs := builtin(rbacGroup, "clusterrolebindings").Strategy.PrepareForCreate(time.Time{}, obj); len(errs) > 0 {
		t.Fatal(errs)
	}
	want := rbacObject(t, "clusterrolebindings", `{"metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},`+
		`"subjects":[{"kind":"User","name":"u","apiGroup":"rbac.authorization.k8s.io"},{"kind":"Group","name":"g","apiGroup":"rbac.authorization.k8s.io"},{"kind":"ServiceAccount","name":"sa","namespace":"n"}]}`)
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("defaulted\n got %v\nwant %v", obj, want)
	}
}

// TestRBACColumns: kube's default table for roles, its binding printer
// for bindings (subjects only with -o wide).
func TestRBACColumns(t *testing.T) {
	for _, tt := range []struct {
		plural string
		want   []string
	}{
		{"roles", []string{"Created At"}},
		{"clusterroles", []string{"Created At"}},
		{"rolebindings", []string{"Role", "Age", "wide:Users", "wide:Groups", "wide:ServiceAccounts"}},
		{"clusterrolebindings", []string{"Role", "Age", "wide:Users", "wide:Groups", "wide:ServiceAccounts"}},
	} {
		if got := columnNames(builtin(rbacGroup, tt.plural)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s columns %v, want %v", tt.plural, got, tt.want)
		}
	}
	// The oracle's cells for this binding.
	obj := rbacObject(t, "rolebindings", `{"metadata":{"name":"wide","namespace":"d"},"roleRef":{"kind":"Role","name":"r3"},"subjects":[`+
		`{"kind":"User","name":"u1"},{"kind":"User","name":"u2"},{"kind":"Group","name":"g1"},{"kind":"ServiceAccount","name":"sa1"},{"kind":"ServiceAccount","name":"sa2","namespace":"other"}]}`)
	got := cells(t, builtin(rbacGroup, "rolebindings"), obj, time.Time{})
	want := map[string]any{"Role": "Role/r3", "Users": "u1, u2", "Groups": "g1", "ServiceAccounts": "/sa1, other/sa2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
}

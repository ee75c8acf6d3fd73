package rbac

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestCovers(t *testing.T) {
	rules := func(r ...rbacv1.PolicyRule) []rbacv1.PolicyRule { return r }
	tests := []struct {
		name          string
		owner, wanted []rbacv1.PolicyRule
		wantUncovered []rbacv1.PolicyRule
	}{
		{"same rule", rules(rule("get,list", "-", "pods", "")), rules(rule("get,list", "-", "pods", "")), nil},
		{"subset of verbs", rules(rule("get,list", "-", "pods", "")), rules(rule("get", "-", "pods", "")), nil},
		{"split across owner rules", rules(rule("get", "-", "pods", ""), rule("list", "-", "pods", "")), rules(rule("get,list", "-", "pods", "")), nil},
		{"missing verbs one atom each",
			rules(rule("get", "-", "pods", "")),
			rules(rule("get,list,watch", "-", "pods", "")),
			rules(rule("list", "-", "pods", ""), rule("watch", "-", "pods", ""))},
		{"atoms in group, resource, verb order",
			rules(),
			rules(rule("get,list", "-,apps", "a,b", "")),
			rules(rule("get", "-", "a", ""), rule("list", "-", "a", ""), rule("get", "-", "b", ""), rule("list", "-", "b", ""),
				rule("get", "apps", "a", ""), rule("list", "apps", "a", ""), rule("get", "apps", "b", ""), rule("list", "apps", "b", ""))},
		{"star owner covers all", rules(rule("*", "*", "*", "")), rules(rule("get,escalate", "apps,-", "deployments,pods/log,*/scale,*", "x")), nil},
		{"star verb", rules(rule("*", "-", "pods", "")), rules(rule("get,delete", "-", "pods", "")), nil},
		{"star verb is not covered by verbs", rules(rule("get,list", "-", "pods", "")), rules(rule("*", "-", "pods", "")), rules(rule("*", "-", "pods", ""))},
		{"star group", rules(rule("get", "*", "deployments", "")), rules(rule("get", "apps,extensions", "deployments", "")), nil},
		{"star resource not covered by a list", rules(rule("get", "-", "pods,secrets", "")), rules(rule("get", "-", "*", "")), rules(rule("get", "-", "*", ""))},
		{"resource does not cover subresource", rules(rule("get", "-", "pods", "")), rules(rule("get", "-", "pods/log", "")), rules(rule("get", "-", "pods/log", ""))},
		{"star subresource covers it", rules(rule("get", "-", "*/log", "")), rules(rule("get", "-", "pods/log", "")), nil},
		{"star subresource covers itself", rules(rule("get", "-", "*/log", "")), rules(rule("get", "-", "*/log", "")), nil},
		{"specific subresource does not cover star", rules(rule("get", "-", "pods/log", "")), rules(rule("get", "-", "*/log", "")), rules(rule("get", "-", "*/log", ""))},
		{"resource slash star covers only itself", rules(rule("get", "-", "pods/*", "")), rules(rule("get", "-", "pods/log,pods/*", "")), rules(rule("get", "-", "pods/log", ""))},
		{"no names covers names", rules(rule("get", "-", "secrets", "")), rules(rule("get", "-", "secrets", "a,b")), nil},
		{"names cover listed names", rules(rule("get", "-", "secrets", "a,b,c")), rules(rule("get", "-", "secrets", "a,c")), nil},
		{"names do not cover other names",
			rules(rule("get", "-", "secrets", "a")),
			rules(rule("get,update", "-", "secrets", "a,b")),
			rules(rule("get", "-", "secrets", "b"), rule("update", "-", "secrets", "a"), rule("update", "-", "secrets", "b"))},
		{"names do not cover all names", rules(rule("get", "-", "secrets", "a")), rules(rule("get", "-", "secrets", "")), rules(rule("get", "-", "secrets", ""))},
		{"urls exact", rules(urlRule("get", "/healthz,/metrics")), rules(urlRule("get", "/metrics")), nil},
		{"url star", rules(urlRule("*", "*")), rules(urlRule("get,post", "/apis,/apis/v1,/")), nil},
		{"url prefix covers longer", rules(urlRule("*", "/apis/*")), rules(urlRule("get", "/apis/v1/foo,/apis/v1")), nil},
		{"url prefix does not cover the bare path", rules(urlRule("*", "/apis/*")), rules(urlRule("get", "/apis,/apis/v1")), rules(urlRule("get", "/apis"))},
		{"url prefix covers narrower prefix", rules(urlRule("get", "/logs*")), rules(urlRule("get", "/logs/*")), nil},
		{"url not covered by resource rules", rules(rule("*", "*", "*", "")), rules(urlRule("get", "/metrics")), rules(urlRule("get", "/metrics"))},
		{"resource not covered by url rules", rules(urlRule("*", "*")), rules(rule("get", "-", "pods", "")), rules(rule("get", "-", "pods", ""))},
		{"mixed rule", rules(rule("get", "v1", "builds", "")), rules(rbacv1.PolicyRule{APIGroups: list("v1"), Verbs: list("get"), Resources: list("builds"), NonResourceURLs: list("/apis")}), rules(urlRule("get", "/apis"))},
		{"owner names do not limit urls", rules(rbacv1.PolicyRule{Verbs: list("get"), NonResourceURLs: list("*"), ResourceNames: list("x")}), rules(urlRule("get", "/x")), rules(urlRule("get", "/x"))},
		{"resource part without groups asks nothing", rules(), rules(rule("get", "", "pods", "")), nil},
		{"nothing wanted", rules(), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, uncovered := Covers(tt.owner, tt.wanted)
			if ok != (len(tt.wantUncovered) == 0) || !reflect.DeepEqual(uncovered, tt.wantUncovered) {
				t.Errorf("Covers = %v, %v; want %v, %v", ok, uncovered, len(tt.wantUncovered) == 0, tt.wantUncovered)
			}
		})
	}
}

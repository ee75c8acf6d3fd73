package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

func TestRuleAllows(t *testing.T) {
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		a    authorizer.Attributes
		want bool
	}{
		{"exact", rule("get", "-", "pods", ""), res("get", "", "pods", "p", "ns"), true},
		{"verb differs", rule("get", "-", "pods", ""), res("list", "", "pods", "", "ns"), false},
		{"verbs are case-sensitive", rule("get", "-", "pods", ""), res("GET", "", "pods", "", "ns"), false},
		{"verb star", rule("*", "-", "pods", ""), res("deletecollection", "", "pods", "", "ns"), true},
		{"one of several verbs", rule("get,list,watch", "-", "pods", ""), res("watch", "", "pods", "", ""), true},
		{"no verbs", rule("", "-", "pods", ""), res("get", "", "pods", "", ""), false},
		{"group differs", rule("get", "-", "deployments", ""), res("get", "apps", "deployments", "", ""), false},
		{"group star", rule("get", "*", "deployments", ""), res("get", "apps", "deployments", "", ""), true},
		{"one of several groups", rule("get", "extensions,apps", "deployments", ""), res("get", "apps", "deployments", "", ""), true},
		{"no groups", rule("get", "", "pods", ""), res("get", "", "pods", "", ""), false},
		{"resource differs", rule("get", "-", "pods", ""), res("get", "", "secrets", "", ""), false},
		{"resources are case-sensitive", rule("get", "-", "pods", ""), res("get", "", "Pods", "", ""), false},
		{"resource star", rule("get", "-", "*", ""), res("get", "", "secrets", "", ""), true},
		{"resource star covers subresources", rule("get", "-", "*", ""), res("get", "", "pods/log", "", ""), true},
		{"resource does not cover its subresource", rule("get", "-", "pods", ""), res("get", "", "pods/status", "", ""), false},
		{"subresource exact", rule("get", "-", "pods/log", ""), res("get", "", "pods/log", "", ""), true},
		{"subresource does not cover resource", rule("get", "-", "pods/status", ""), res("get", "", "pods", "", ""), false},
		{"other subresource", rule("get", "-", "pods/status", ""), res("get", "", "pods/log", "", ""), false},
		{"star subresource", rule("update", "-", "*/scale", ""), res("update", "", "deployments/scale", "", ""), true},
		{"star subresource any resource", rule("update", "-", "*/scale", ""), res("update", "", "anything/scale", "", ""), true},
		{"star subresource not the resource", rule("update", "-", "*/scale", ""), res("update", "", "deployments", "", ""), false},
		{"star subresource other subresource", rule("update", "-", "*/scale", ""), res("update", "", "deployments/status", "", ""), false},
		{"star subresource longer suffix", rule("update", "-", "*/scale", ""), res("update", "", "deployments/rescale", "", ""), false},
		// Kube has no "resource/*" wildcard (checked on kube-apiserver
		// v1.33.13): it matches only a subresource named "*".
		{"resource slash star is no wildcard", rule("get", "-", "pods/*", ""), res("get", "", "pods/log", "", ""), false},
		{"resource slash star not the resource", rule("get", "-", "pods/*", ""), res("get", "", "pods", "", ""), false},
		{"resource slash star literal", rule("get", "-", "pods/*", ""), res("get", "", "pods/*", "", ""), true},
		{"star star", rule("get", "-", "*/*", ""), res("get", "", "pods/log", "", ""), false},
		{"name listed", rule("get", "-", "configmaps", "a,b"), res("get", "", "configmaps", "b", "ns"), true},
		{"name not listed", rule("get", "-", "configmaps", "a,b"), res("get", "", "configmaps", "c", "ns"), false},
		{"names never allow list", rule("list", "-", "configmaps", "a"), res("list", "", "configmaps", "", "ns"), false},
		{"names never allow create", rule("create", "-", "configmaps", "a"), res("create", "", "configmaps", "", "ns"), false},
		{"empty name listed allows nameless", rule("list", "-", "configmaps", "-"), res("list", "", "configmaps", "", "ns"), true},
		{"no names allows any", rule("get", "-", "configmaps", ""), res("get", "", "configmaps", "x", "ns"), true},
		{"names with subresource", rule("get", "-", "pods/log", "p1"), res("get", "", "pods/log", "p1", "ns"), true},
		{"namespace does not matter", rule("get", "-", "pods", ""), res("get", "", "pods", "", "any"), true},
		{"resource rule does not allow a path", rule("get", "*", "*", ""), path("get", "/healthz"), false},
		{"url exact", urlRule("get", "/healthz"), path("get", "/healthz"), true},
		{"url other", urlRule("get", "/healthz"), path("get", "/healthz/etcd"), false},
		{"url star", urlRule("get", "*"), path("get", "/anything/at/all"), true},
		{"url prefix", urlRule("get", "/healthz/*"), path("get", "/healthz/etcd"), true},
		{"url prefix not the bare path", urlRule("get", "/healthz/*"), path("get", "/healthz"), false},
		{"url prefix without slash", urlRule("get", "/api*"), path("get", "/apis/apps"), true},
		{"url star inside is literal", urlRule("get", "/a/*/b"), path("get", "/a/x/b"), false},
		{"url verb", urlRule("get", "/metrics"), path("post", "/metrics"), false},
		{"url verb star", urlRule("*", "/metrics"), path("post", "/metrics"), true},
		{"url rule does not allow a resource", urlRule("*", "*"), res("get", "", "pods", "", ""), false},
		{"mixed rule allows both", rbacv1.PolicyRule{Verbs: list("get"), APIGroups: list("-"), Resources: list("pods"), NonResourceURLs: list("/x")}, path("get", "/x"), true},
		{"names do not limit paths", rbacv1.PolicyRule{Verbs: list("get"), NonResourceURLs: list("/x"), ResourceNames: list("n")}, path("get", "/x"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RuleAllows(tt.a, tt.rule); got != tt.want {
				t.Errorf("RuleAllows(%+v, %s) = %v, want %v", tt.a, CompactString(tt.rule), got, tt.want)
			}
		})
	}
}

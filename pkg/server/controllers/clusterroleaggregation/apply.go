package clusterroleaggregation

import (
	"encoding/json"

	rbacv1 "k8s.io/api/rbac/v1"
)

// FieldManager is the manager the aggregated rules are applied as, and
// so the owner of an aggregate's rules in its managedFields: kube's.
const FieldManager = "clusterrole-aggregation-controller"

// applyConfig is the apply configuration of an aggregate: its name and
// rules, nothing else, so the controller owns the rules alone. Empty
// lists are left out, as client-go's apply configurations leave them:
// no rules at all gives up the rules the controller owned, which then
// go.
type applyConfig struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Metadata   applyMeta   `json:"metadata"`
	Rules      []applyRule `json:"rules,omitempty"`
}

type applyMeta struct {
	Name string `json:"name"`
}

type applyRule struct {
	Verbs           []string `json:"verbs,omitempty"`
	APIGroups       []string `json:"apiGroups,omitempty"`
	Resources       []string `json:"resources,omitempty"`
	ResourceNames   []string `json:"resourceNames,omitempty"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// applyBody is the apply configuration giving the ClusterRole name
// these rules.
func applyBody(name string, rules []rbacv1.PolicyRule) ([]byte, error) {
	cfg := applyConfig{
		APIVersion: rbacv1.SchemeGroupVersion.String(),
		Kind:       "ClusterRole",
		Metadata:   applyMeta{Name: name},
	}
	for _, r := range rules {
		cfg.Rules = append(cfg.Rules, applyRule{
			Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources,
			ResourceNames: r.ResourceNames, NonResourceURLs: r.NonResourceURLs,
		})
	}
	return json.Marshal(cfg)
}

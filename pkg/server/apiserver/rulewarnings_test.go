package apiserver_test

import (
	"net/http"
	"slices"
	"testing"
)

// TestRatchetedRuleWarns: an update that keeps a value breaking a CRD
// validation rule (tightened since the object was written) succeeds, as
// ratcheting allows, and carries the failure as a Warning, as
// kube-apiserver sends it; changing the value fails.
func TestRatchetedRuleWarns(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", crds, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"gauges.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gauges","kind":"Gauge"},
  "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","properties":{
    "level":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 100"}]},
    "note":{"type":"string"}}}}}}}]}}`)
	const gauges = "/apis/example.com/v1/namespaces/demo/gauges"
	c.must(http.StatusCreated, "POST", gauges, `{"apiVersion":"example.com/v1","kind":"Gauge","metadata":{"name":"g"},"spec":{"level":50}}`)
	c.must(http.StatusOK, "PATCH", crds+"/gauges.example.com",
		`[{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/level/x-kubernetes-validations/0/rule","value":"self < 10"}]`,
		"Content-Type", "application/json-patch+json")

	merge := []string{"Content-Type", "application/merge-patch+json"}
	want := []string{`spec.level: Invalid value: "integer": failed rule: self < 10`}
	r := c.do("PATCH", gauges+"/g", `{"spec":{"note":"kept"}}`, merge...)
	if r.code != http.StatusOK || !slices.Equal(warnings(r), want) {
		t.Errorf("update keeping the value: %d, warnings %q; want 200 and %q: %s", r.code, warnings(r), want, r.body)
	}
	r = c.do("PUT", gauges+"/g", `{"apiVersion":"example.com/v1","kind":"Gauge","metadata":{"name":"g"},"spec":{"level":50,"note":"put"}}`)
	if r.code != http.StatusOK || !slices.Equal(warnings(r), want) {
		t.Errorf("put keeping the value: %d, warnings %q; want 200 and %q: %s", r.code, warnings(r), want, r.body)
	}
	r = c.do("PATCH", gauges+"/g", `{"spec":{"level":60}}`, merge...)
	if r.code != http.StatusUnprocessableEntity || len(warnings(r)) != 0 {
		t.Errorf("update changing the value: %d, warnings %q; want 422 and none: %s", r.code, warnings(r), r.body)
	}
}

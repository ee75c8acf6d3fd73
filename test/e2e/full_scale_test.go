package e2e_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// fullScaleVersionsSelectors is step 16: kubectl scale through the scale
// subresource, reads at the served v1beta1, and --field-selector on the
// selectable field spec.mode.
func fullScaleVersionsSelectors(t *testing.T, e *fullEnv) {
	t.Run("scale", func(t *testing.T) {
		e.seed(t, e.widgetYAML("scaled", map[string]any{"replicas": 1, "mode": "a"}))
		ref := e.widget("scaled")
		if out, want := e.ok(t, "scale", ref, "--replicas=3"), ref+" scaled\n"; out != want {
			t.Errorf("kubectl scale: %q, want %q", out, want)
		}
		if got := e.ok(t, "get", ref, "-o", "jsonpath={.spec.replicas}"); got != "3" {
			t.Errorf("spec.replicas after kubectl scale: %q, want 3", got)
		}
		// --current-replicas is checked against the scale subresource.
		if stderr := e.fails(t, "scale", ref, "--current-replicas=1", "--replicas=5"); stderr == "" {
			t.Error("kubectl scale --current-replicas=1 of 3 replicas failed without a message")
		}
		if got := e.ok(t, "get", ref, "-o", "jsonpath={.spec.replicas}"); got != "3" {
			t.Errorf("spec.replicas after a refused kubectl scale: %q, want 3", got)
		}

		e.ok(t, "patch", ref, "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":2}}`)
		raw := e.k.ok(t, "get", "--raw", "/apis/"+e.group+"/v1/namespaces/"+e.ns+"/widgets/scaled/scale")
		var scale map[string]any
		if err := json.Unmarshal([]byte(raw), &scale); err != nil {
			t.Fatalf("GET .../scale: %v\n%s", err, raw)
		}
		if str(scale, "kind") != "Scale" || str(scale, "apiVersion") != "autoscaling/v1" {
			t.Errorf("GET .../scale: kind %q apiVersion %q, want Scale autoscaling/v1", str(scale, "kind"), str(scale, "apiVersion"))
		}
		if s, _ := num(scale, "spec.replicas"); s != 3 {
			t.Errorf("scale spec.replicas %v, want 3", field(scale, "spec.replicas"))
		}
		if s, _ := num(scale, "status.replicas"); s != 2 {
			t.Errorf("scale status.replicas %v, want 2 (from .status.replicas)", field(scale, "status.replicas"))
		}
	})

	t.Run("v1beta1", func(t *testing.T) {
		e.seed(t, e.widgetYAML("versioned", map[string]any{"replicas": 2, "mode": "a"}))
		beta := "widgets.v1beta1." + e.group
		obj := e.getJSON(t, beta, "versioned")
		if got, want := str(obj, "apiVersion"), e.group+"/v1beta1"; got != want {
			t.Errorf("get %s: apiVersion %q, want %q", beta, got, want)
		}
		if got, want := mustJSON(obj["spec"]), `{"mode":"a","replicas":2}`; got != want {
			t.Errorf("get %s: spec %s, want %s", beta, got, want)
		}
		// Written at v1beta1, read at v1: conversion None changes only
		// apiVersion.
		e.seed(t, e.widgetYAMLAt("v1beta1", "from-beta", nil, map[string]any{"replicas": 4, "mode": "b"}))
		obj = e.getJSON(t, "widgets.v1."+e.group, "from-beta")
		if got, want := str(obj, "apiVersion"), e.group+"/v1"; got != want {
			t.Errorf("get v1 of an object written at v1beta1: apiVersion %q, want %q", got, want)
		}
		if got, want := mustJSON(obj["spec"]), `{"mode":"b","replicas":4}`; got != want {
			t.Errorf("get v1 of an object written at v1beta1: spec %s, want %s", got, want)
		}
	})

	t.Run("field selector", func(t *testing.T) {
		sel := map[string]string{"selected": "yes"}
		e.seed(t, e.widgetYAMLAt("v1", "sel-a", sel, map[string]any{"mode": "a"}))
		e.seed(t, e.widgetYAMLAt("v1", "sel-b", sel, map[string]any{"mode": "b"}))
		for _, tc := range []struct {
			selector string
			want     []string
		}{
			{"spec.mode=a", []string{"sel-a"}},
			{"spec.mode!=a", []string{"sel-b"}},
			{"spec.mode=b,metadata.name=sel-b", []string{"sel-b"}},
			{"spec.mode=c", nil},
		} {
			var want []string
			for _, n := range tc.want {
				want = append(want, e.widget(n))
			}
			got := names(e.ok(t, "get", e.widgets(), "-l", "selected=yes", "--field-selector", tc.selector, "-o", "name"))
			if !slices.Equal(got, want) {
				t.Errorf("get --field-selector %s: %q, want %q", tc.selector, got, want)
			}
		}
		wantContains(t, "get --field-selector spec.name=x", e.fails(t, "get", e.widgets(), "--field-selector", "spec.name=x"), "spec.name")
	})
}

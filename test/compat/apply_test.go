package compat_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/openapi3"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestClientGoServerSideApply applies with client-go's typed apply
// configurations and with controller-runtime's client, as operators do,
// and checks ownership and conflicts come back as those libraries expect.
func TestClientGoServerSideApply(t *testing.T) {
	srv := startServer(t)
	cs, err := kubernetes.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxWithTimeout(t)
	ns := createNamespace(t, cs, "apply")
	cms := cs.CoreV1().ConfigMaps(ns)

	cfg := corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"a": "1"})
	got, err := cms.Apply(ctx, cfg, metav1.ApplyOptions{FieldManager: "client-go"})
	if err != nil {
		t.Fatalf("client-go Apply: %v", err)
	}
	if got.Data["a"] != "1" || len(got.ManagedFields) != 1 || got.ManagedFields[0].Manager != "client-go" ||
		got.ManagedFields[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Fatalf("client-go Apply answered data %v, managedFields %+v", got.Data, got.ManagedFields)
	}

	// Extracting what a manager owns is how client-go users re-apply.
	extracted, err := corev1ac.ExtractConfigMap(got, "client-go")
	if err != nil {
		t.Fatalf("ExtractConfigMap: %v", err)
	}
	if extracted.Data["a"] != "1" {
		t.Errorf("extracted %v, want data a=1", extracted.Data)
	}

	crc, err := client.New(srv.Config, client.Options{Scheme: newScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	mine := corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"a": "2"})
	err = crc.Apply(ctx, mine, client.FieldOwner("controller-runtime"))
	if !apierrors.IsConflict(err) {
		t.Fatalf("controller-runtime apply of a field client-go owns: got %v, want a Conflict", err)
	}
	if err := crc.Apply(ctx, mine, client.FieldOwner("controller-runtime"), client.ForceOwnership); err != nil {
		t.Fatalf("forced controller-runtime apply: %v", err)
	}
	var stored corev1.ConfigMap
	if err := crc.Get(ctx, types.NamespacedName{Namespace: ns, Name: "cm"}, &stored); err != nil {
		t.Fatal(err)
	}
	owners := map[string]bool{}
	for _, e := range stored.ManagedFields {
		owners[e.Manager] = true
	}
	if stored.Data["a"] != "2" || !owners["controller-runtime"] {
		t.Errorf("after the forced apply: data %v, managers %v", stored.Data, owners)
	}
}

// TestClientGoOpenAPI reads the OpenAPI documents through client-go's
// discovery, as kubectl does: v2 as protobuf, v3 through its index.
func TestClientGoOpenAPI(t *testing.T) {
	srv := startServer(t)
	cs, err := kubernetes.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := cs.Discovery().OpenAPISchema()
	if err != nil {
		t.Fatalf("OpenAPISchema (v2, protobuf): %v", err)
	}
	found := false
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		if d.GetName() == "io.k8s.api.core.v1.ConfigMap" {
			found = true
		}
	}
	if !found {
		t.Error("the v2 document has no io.k8s.api.core.v1.ConfigMap definition")
	}
	root := openapi3.NewRoot(cs.Discovery().OpenAPIV3())
	gvs, err := root.GroupVersions()
	if err != nil {
		t.Fatalf("v3 group-versions: %v", err)
	}
	if len(gvs) == 0 {
		t.Fatal("the v3 index lists no group-versions")
	}
	spec, err := root.GVSpec(corev1.SchemeGroupVersion)
	if err != nil {
		t.Fatalf("v3 document of v1: %v", err)
	}
	if spec.Components == nil || spec.Components.Schemas["io.k8s.api.core.v1.ConfigMap"] == nil {
		t.Error("the v3 document of v1 has no io.k8s.api.core.v1.ConfigMap schema")
	}
}

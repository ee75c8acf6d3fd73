package openapi

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

func widget() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default",
			"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u1"}}},
		"spec": map[string]any{
			"size": int64(2), "port": "http", "color": "red",
			"ports":    []any{map[string]any{"name": "a", "number": int64(1)}, map[string]any{"name": "b"}},
			"template": map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}, "anything": true},
			"extra":    map[string]any{"free": []any{"form"}},
		},
	}}
}

func configMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default", Finalizers: []string{"a", "b"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: "n", UID: "u2"}}},
		Data: map[string]string{"k": "v"},
	}
}

// TestTypeConverter builds server-side apply's type converter from the
// definitions, as the server does, and converts objects of each kind.
func TestTypeConverter(t *testing.T) {
	crdGVK := schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	resources := []Resource{
		builtin(t, configMapGVK, "configmaps", true, &corev1.ConfigMap{}),
		builtin(t, crdGVK, "customresourcedefinitions", false, &apiextensionsv1.CustomResourceDefinition{}),
		custom(t, widgetGVK, "widgets", widgetSchema()),
	}
	tc, err := managedfields.NewTypeConverter(MergeDefinitions(resources), false)
	if err != nil {
		t.Fatal(err)
	}
	checkConversions(t, tc)

	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "stable.example.com", Scope: "Namespaced",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: widgetSchema()}}}},
	}
	if _, err := tc.ObjectToTyped(crd); err != nil {
		t.Errorf("CustomResourceDefinition: %v", err)
	}
}

func checkConversions(t *testing.T, tc managedfields.TypeConverter) {
	t.Helper()
	cm, err := tc.ObjectToTyped(configMap())
	if err != nil {
		t.Fatalf("ConfigMap: %v", err)
	}
	set, err := cm.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`.metadata.ownerReferences[uid="u2"]`, `.metadata.finalizers[="a"]`, `.data.k`} {
		if !strings.Contains(set.String(), want) {
			t.Errorf("ConfigMap fields lack %s (ownerReferences keyed by uid, finalizers a set):\n%s", want, set)
		}
	}
	w, err := tc.ObjectToTyped(widget())
	if err != nil {
		t.Fatalf("Widget: %v", err)
	}
	set, err = w.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`.spec.ports[name="a"].number`, `.metadata.ownerReferences[uid="u1"]`, `.spec.extra.free`, `.spec.template.anything`} {
		if !strings.Contains(set.String(), want) {
			t.Errorf("Widget fields lack %s:\n%s", want, set)
		}
	}
	bad := widget()
	bad.Object["spec"].(map[string]any)["size"] = "big"
	if _, err := tc.ObjectToTyped(bad); err == nil {
		t.Error("a Widget with a string size converted")
	}
}

// TestTypeConverterFromServedV3 builds the type converter as client-go's
// openapi.NewTypeConverter does: from the components.schemas of every
// served v3 document.
func TestTypeConverterFromServedV3(t *testing.T) {
	srv := httptest.NewServer(testService(t))
	defer srv.Close()
	models := map[string]*spec.Schema{}
	for _, path := range []string{"api/v1", "apis/stable.example.com/v1"} {
		resp, err := srv.Client().Get(srv.URL + "/openapi/v3/" + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var doc spec3.OpenAPI
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for name, s := range doc.Components.Schemas {
			models[name] = s
		}
	}
	tc, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		t.Fatal(err)
	}
	checkConversions(t, tc)
}

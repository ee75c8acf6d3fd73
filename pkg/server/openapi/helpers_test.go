package openapi

import (
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// builtin describes a built-in kind for tests.
func builtin(t testing.TB, gvk schema.GroupVersionKind, plural string, namespaced bool, obj any, subresources ...string) Resource {
	t.Helper()
	root, defs, err := ForType(gvk, obj)
	if err != nil {
		t.Fatal(err)
	}
	return Resource{GVK: gvk, ListKind: gvk.Kind + "List", Plural: plural, Namespaced: namespaced,
		Subresources: subresources, StrategicMerge: true, Root: root, Definitions: defs}
}

// custom describes a custom kind for tests.
func custom(t testing.TB, gvk schema.GroupVersionKind, plural string, props *apiextensionsv1.JSONSchemaProps, subresources ...string) Resource {
	t.Helper()
	root, defs, err := ForCRD(gvk, props)
	if err != nil {
		t.Fatal(err)
	}
	return Resource{GVK: gvk, ListKind: gvk.Kind + "List", Plural: plural, Namespaced: true,
		Subresources: subresources, Root: root, Definitions: defs}
}

var (
	configMapGVK = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	namespaceGVK = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	leaseGVK     = schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}
	widgetGVK    = schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Widget"}
)

// widgetSchema is a CRD schema exercising what CRD schemas may say.
func widgetSchema() *apiextensionsv1.JSONSchemaProps {
	str := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "string", Description: desc}
	}
	return &apiextensionsv1.JSONSchemaProps{
		Type:        "object",
		Description: "Widget is a test kind.",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {
				Type:        "object",
				Description: "spec is the desired widget.",
				Required:    []string{"size"},
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"size":  {Type: "integer", Format: "int32", Description: "size in units.", Default: &apiextensionsv1.JSON{Raw: []byte("3")}},
					"color": str("color of the widget."),
					"port":  {XIntOrString: true, Description: "port by number or name."},
					"ports": {
						Type: "array", XListType: ptr.To("map"), XListMapKeys: []string{"name"},
						Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
							Type: "object", Required: []string{"name"},
							Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str("port name."), "number": {Type: "integer"}},
						}},
					},
					"tags":     {Type: "array", XListType: ptr.To("set"), Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
					"labels":   {Type: "object", XMapType: ptr.To("atomic"), AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
					"note":     {Type: "string", Nullable: true},
					"template": {Type: "object", XEmbeddedResource: true, XPreserveUnknownFields: ptr.To(true)},
					"extra":    {Type: "object", XPreserveUnknownFields: ptr.To(true)},
				},
			},
			"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"ready": {Type: "boolean"}}},
		},
	}
}

// testService serves core/v1 ConfigMaps and Namespaces, Leases and Widgets.
func testService(t testing.TB) *Service {
	t.Helper()
	s := NewService()
	s.SetGroupVersion(configMapGVK.GroupVersion(), []Resource{
		builtin(t, configMapGVK, "configmaps", true, &corev1.ConfigMap{}),
		builtin(t, namespaceGVK, "namespaces", false, &corev1.Namespace{}, "status"),
	})
	s.SetGroupVersion(leaseGVK.GroupVersion(), []Resource{builtin(t, leaseGVK, "leases", true, &coordinationv1.Lease{})})
	s.SetGroupVersion(widgetGVK.GroupVersion(), []Resource{custom(t, widgetGVK, "widgets", widgetSchema(), "status", "scale")})
	return s
}

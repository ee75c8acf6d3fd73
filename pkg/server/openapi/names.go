package openapi

import (
	"reflect"
	"strings"
)

// refPrefix is how definitions refer to each other. Definitions always use
// the v2 form; v3 documents rewrite it to v3Prefix as they are encoded.
const (
	refPrefix = "#/definitions/"
	v3Prefix  = "#/components/schemas/"
)

// modelNamer is implemented by the generated OpenAPIModelName methods of
// k8s.io/api and k8s.io/apimachinery types.
type modelNamer interface{ OpenAPIModelName() string }

// typeName returns the definition name kube gives a Go type: its
// OpenAPIModelName if it has one, else its package path with the domain
// reversed (k8s.io/api/core/v1.ConfigMap is io.k8s.api.core.v1.ConfigMap).
// A name promoted from an embedded type (TypeMeta has one) is not the
// type's own: the name must end in the type's.
func typeName(t reflect.Type) string {
	if n, ok := reflect.New(t).Interface().(modelNamer); ok {
		if name := n.OpenAPIModelName(); strings.HasSuffix(name, "."+t.Name()) {
			return name
		}
	}
	return friendlyName(t.PkgPath()) + "." + t.Name()
}

// friendlyName turns a Go package path into the dotted form used in
// definition names.
func friendlyName(pkg string) string {
	if i := strings.LastIndex(pkg, "/vendor/"); i >= 0 {
		pkg = pkg[i+len("/vendor/"):]
	}
	parts := strings.Split(pkg, "/")
	if strings.Contains(parts[0], ".") {
		parts[0] = reverseDots(parts[0])
	}
	return strings.Join(parts, ".")
}

// crdName is the definition name kube gives a custom kind: the reversed
// group, the version and the kind (example.com/v1 Foo is com.example.v1.Foo).
func crdName(group, version, kind string) string {
	parts := make([]string, 0, 3)
	if group != "" {
		parts = append(parts, reverseDots(group))
	}
	if version != "" {
		parts = append(parts, version)
	}
	return strings.Join(append(parts, kind), ".")
}

func reverseDots(s string) string {
	parts := strings.Split(s, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}

package cache

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Key is an object's key in a Store: "namespace/name", or "name" for
// cluster-scoped objects.
func Key(obj metav1.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// SplitKey splits a key made by Key into namespace and name.
func SplitKey(key string) (namespace, name string) {
	if ns, n, ok := strings.Cut(key, "/"); ok {
		return ns, n
	}
	return "", key
}

package registry

import (
	"strings"

	"encoding/base64"
	"slices"
	"time"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Strategy holds what differs about a kind when it is written: defaults
// the server fills in and rules beyond the generic metadata ones. Objects
// are unstructured content; the generic path has already applied
// server-set metadata and the status subresource rules.
type Strategy interface {
	PrepareForCreate(now time.Time, obj map[string]any) field.ErrorList
	PrepareForUpdate(now time.Time, obj, old map[string]any) field.ErrorList
}

// DeleteStrategy is implemented by kinds whose deletion waits for more
// than metadata.finalizers.
type DeleteStrategy interface {
	// HoldsDeletion reports whether obj must stay once its deletion has
	// started, beyond its metadata.finalizers.
	HoldsDeletion(obj map[string]any) bool
	// PrepareForDelete adjusts an object whose deletion starts and is held.
	PrepareForDelete(obj map[string]any)
}

// NamespaceFinalizer is the spec finalizer that holds a namespace until
// its contents are deleted.
const NamespaceFinalizer = "kubernetes"

// namespaceStrategy gives every namespace the "kubernetes" spec
// finalizer: deleting a namespace makes it Terminating, its contents are
// deleted, and only the finalize subresource releases it.
type namespaceStrategy struct{}

func (namespaceStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	obj["status"] = map[string]any{"phase": "Active"}
	spec := nestedMap(obj, true, "spec")
	fins, _ := spec["finalizers"].([]any)
	if !slices.Contains(fins, any(NamespaceFinalizer)) {
		fins = append(fins, NamespaceFinalizer)
		spec["finalizers"] = fins
	}
	return namespaceFinalizerErrors(fins, false)
}

// standardFinalizers are the finalizer names kube accepts without a
// domain prefix.
var standardFinalizers = []string{NamespaceFinalizer, metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents}

// namespaceFinalizerErrors checks a namespace's spec finalizers as kube
// checks them: each a qualified name, and one without a domain prefix
// one of the standard names. On create kube names the list, on finalize
// the item (indexed).
func namespaceFinalizerErrors(fins []any, indexed bool) field.ErrorList {
	var errs field.ErrorList
	for i, f := range fins {
		path := field.NewPath("spec", "finalizers")
		if indexed {
			path = path.Index(i)
		}
		name := str(f)
		errs = append(errs, apivalidation.ValidateFinalizerName(name, path)...)
		if !strings.Contains(name, "/") && !slices.Contains(standardFinalizers, name) {
			errs = append(errs, field.Invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// PrepareForUpdate keeps spec.finalizers: only the finalize subresource
// changes them.
func (namespaceStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	oldSpec := nestedMap(old, false, "spec")
	spec := nestedMap(obj, true, "spec")
	if f, ok := oldSpec["finalizers"]; ok {
		spec["finalizers"] = f
	} else {
		delete(spec, "finalizers")
	}
	return nil
}

func (namespaceStrategy) HoldsDeletion(obj map[string]any) bool {
	fins, _ := nestedMap(obj, false, "spec")["finalizers"].([]any)
	return len(fins) > 0
}

func (namespaceStrategy) PrepareForDelete(obj map[string]any) {
	nestedMap(obj, true, "status")["phase"] = "Terminating"
}

type secretStrategy struct{}

func (secretStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	if t, _ := obj["type"].(string); t == "" {
		obj["type"] = "Opaque"
	}
	mergeStringData(obj)
	return secretErrors(obj)
}

func (secretStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	mergeStringData(obj)
	// kube-apiserver defaults an unset type to Opaque as it decodes
	// the write, before its strategy could keep the stored type: an
	// update that leaves out the type of a non-Opaque Secret changes it.
	if t, _ := obj["type"].(string); t == "" {
		obj["type"] = "Opaque"
	}
	var errs field.ErrorList
	if obj["type"] != old["type"] {
		errs = append(errs, field.Invalid(field.NewPath("type"), obj["type"], "field is immutable"))
	}
	errs = append(errs, immutableDataErrors(obj, old, "data")...)
	return append(errs, secretErrors(obj)...)
}

// nestedMap returns obj[path...] as a map, creating the maps on the way
// when create is set.
func nestedMap(obj map[string]any, create bool, path ...string) map[string]any {
	m := obj
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			if !create {
				return nil
			}
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	return m
}

// mergeStringData moves a Secret's write-only stringData into data,
// base64-encoded, where it wins over the same key: Secrets are stored
// and served with data only.
func mergeStringData(obj map[string]any) {
	sd, _ := obj["stringData"].(map[string]any)
	delete(obj, "stringData")
	if len(sd) == 0 {
		return
	}
	data := nestedMap(obj, true, "data")
	for k, v := range sd {
		str, _ := v.(string)
		data[k] = base64.StdEncoding.EncodeToString([]byte(str))
	}
}

package registry

import (
	"fmt"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CRDCleanupFinalizer holds a CRD until its custom objects are deleted.
const CRDCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// FromCRD returns one Resource per served version of a CRD.
func FromCRD(obj map[string]any) ([]*Resource, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &crd); err != nil {
		return nil, fmt.Errorf("registry: reading CRD: %w", err)
	}
	n := crd.Spec.Names
	singular := n.Singular
	if singular == "" {
		singular = strings.ToLower(n.Kind)
	}
	listKind := n.ListKind
	if listKind == "" {
		listKind = n.Kind + "List"
	}
	// kube-apiserver names the storage version in discovery only when it
	// is served.
	storageVersion := ""
	for _, v := range crd.Spec.Versions {
		if v.Served && v.Storage {
			storageVersion = v.Name
		}
	}
	var out []*Resource
	for i, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		r := &Resource{
			Group: crd.Spec.Group, Version: v.Name,
			Kind: n.Kind, ListKind: listKind, Plural: n.Plural, Singular: singular,
			ShortNames: n.ShortNames, Categories: n.Categories,
			Namespaced:        crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
			TracksGeneration:  true,
			StatusSubresource: v.Subresources != nil && v.Subresources.Status != nil,
			StorageVersion:    storageVersion,
			Verbs:             customResourceVerbs,
		}
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			r.Schema = v.Schema.OpenAPIV3Schema
			// A stored CRD whose schema does not compile (written before
			// schemas were checked, or by a laxer version) is still
			// served, unchecked, as kube-apiserver serves non-structural
			// ones: refusing it would strand its objects.
			if custom, errs := compileSchema(r.Schema, field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema")); len(errs) == 0 {
				r.custom = custom
			}
		}
		if v.Subresources != nil && v.Subresources.Scale != nil {
			sc := v.Subresources.Scale
			r.Scale = &Scale{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath}
			if sc.LabelSelectorPath != nil {
				r.Scale.LabelSelectorPath = *sc.LabelSelectorPath
			}
		}
		for _, c := range v.AdditionalPrinterColumns {
			desc := c.Description
			if desc == "" {
				// kube-apiserver describes an undescribed column by its path.
				desc = "Custom resource definition column (in JSONPath format): " + c.JSONPath
			}
			r.Columns = append(r.Columns, Column{
				Name: c.Name, Type: c.Type, Format: c.Format, Description: desc,
				Priority: c.Priority, Path: c.JSONPath,
			})
		}
		for _, f := range v.SelectableFields {
			r.SelectableFields = append(r.SelectableFields, strings.TrimPrefix(f.JSONPath, "."))
		}
		out = append(out, r)
	}
	return out, nil
}

// customResourceVerbs are a custom resource's verbs in the order
// kube-apiserver lists them in discovery.
var customResourceVerbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// builtinGroups may not be taken by custom resources.
var builtinGroups = []string{"", "events.k8s.io", "coordination.k8s.io", "apiextensions.k8s.io", "authentication.k8s.io", "autoscaling"}

// IsBuiltinGroup reports whether group is served by the server itself
// rather than by CRDs.
func IsBuiltinGroup(group string) bool { return slices.Contains(builtinGroups, group) }

type crdStrategy struct{}

func (crdStrategy) PrepareForCreate(now time.Time, obj map[string]any) field.ErrorList {
	if errs := validateCRD(obj, nil); len(errs) > 0 {
		return errs
	}
	meta := nestedMap(obj, true, "metadata")
	fins, _ := meta["finalizers"].([]any)
	if !slices.Contains(fins, any(CRDCleanupFinalizer)) {
		meta["finalizers"] = append(fins, CRDCleanupFinalizer)
	}
	setCRDStatus(now, obj, nil)
	return nil
}

func (crdStrategy) PrepareForUpdate(now time.Time, obj, old map[string]any) field.ErrorList {
	if errs := validateCRD(obj, old); len(errs) > 0 {
		return errs
	}
	setCRDStatus(now, obj, old)
	return nil
}

// validateCRD checks what the server relies on to serve the CRD: its
// name, group, names, scope and versions.
func validateCRD(obj, old map[string]any) field.ErrorList {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &crd); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("spec"), nil, err.Error())}
	}
	var errs field.ErrorList
	spec := field.NewPath("spec")
	s := crd.Spec
	switch {
	case s.Group == "":
		errs = append(errs, field.Required(spec.Child("group"), ""))
	case !strings.Contains(s.Group, "."):
		errs = append(errs, field.Invalid(spec.Child("group"), s.Group, "should be a domain with at least one dot"))
	case slices.Contains(builtinGroups, s.Group):
		errs = append(errs, field.Forbidden(spec.Child("group"), "group "+s.Group+" is served by the server itself"))
	default:
		for _, m := range validation.IsDNS1123Subdomain(s.Group) {
			errs = append(errs, field.Invalid(spec.Child("group"), s.Group, m))
		}
	}
	names := spec.Child("names")
	if s.Names.Plural == "" {
		errs = append(errs, field.Required(names.Child("plural"), ""))
	} else {
		for _, m := range validation.IsDNS1035Label(s.Names.Plural) {
			errs = append(errs, field.Invalid(names.Child("plural"), s.Names.Plural, m))
		}
	}
	if s.Names.Kind == "" {
		errs = append(errs, field.Required(names.Child("kind"), ""))
	}
	if want := s.Names.Plural + "." + s.Group; crd.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), crd.Name, "must be spec.names.plural+\".\"+spec.group"))
	}
	if s.Scope != apiextensionsv1.NamespaceScoped && s.Scope != apiextensionsv1.ClusterScoped {
		errs = append(errs, field.NotSupported(spec.Child("scope"), s.Scope, []string{"Namespaced", "Cluster"}))
	}
	storage := 0
	seen := map[string]bool{}
	for i, v := range s.Versions {
		p := spec.Child("versions").Index(i)
		if seen[v.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), v.Name))
		}
		seen[v.Name] = true
		for _, m := range validation.IsDNS1035Label(v.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), v.Name, m))
		}
		if v.Storage {
			storage++
		}
		sp := p.Child("schema", "openAPIV3Schema")
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, field.Required(sp, "schemas are required"))
		} else if _, serrs := compileSchema(v.Schema.OpenAPIV3Schema, sp); len(serrs) > 0 {
			errs = append(errs, serrs...)
		}
	}
	if len(s.Versions) == 0 {
		errs = append(errs, field.Required(spec.Child("versions"), "must have at least one version"))
	} else if storage != 1 {
		errs = append(errs, field.Invalid(spec.Child("versions"), storage, "must have exactly one version marked as storage version"))
	}
	if old != nil {
		var prev apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(old, &prev); err == nil {
			if prev.Spec.Group != s.Group {
				errs = append(errs, field.Invalid(spec.Child("group"), s.Group, "field is immutable"))
			}
			if prev.Spec.Scope != s.Scope {
				errs = append(errs, field.Invalid(spec.Child("scope"), s.Scope, "field is immutable"))
			}
			if prev.Spec.Names.Plural != s.Names.Plural {
				errs = append(errs, field.Invalid(names.Child("plural"), s.Names.Plural, "field is immutable"))
			}
		}
	}
	return errs
}

// setCRDStatus records that the names are accepted and the resource is
// established. Both are true as soon as the write lands because the
// server starts serving the resource before it answers the write.
func setCRDStatus(now time.Time, obj, old map[string]any) {
	spec := nestedMap(obj, false, "spec")
	status := map[string]any{}
	if old != nil {
		if s, ok := old["status"].(map[string]any); ok {
			status = runtime.DeepCopyJSON(s)
		}
	}
	status["acceptedNames"] = runtime.DeepCopyJSONValue(spec["names"])
	stored, _ := status["storedVersions"].([]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if vm["storage"] == true && !slices.Contains(stored, vm["name"]) {
			stored = append(stored, vm["name"])
		}
	}
	status["storedVersions"] = stored
	conds, _ := status["conditions"].([]any)
	for _, c := range []struct{ typ, reason, msg string }{
		{"NamesAccepted", "NoConflicts", "no conflicts found"},
		{"Established", "InitialNamesAccepted", "the initial names have been accepted"},
	} {
		conds = setCondition(conds, now, c.typ, c.reason, c.msg)
	}
	status["conditions"] = conds
	obj["status"] = status
}

func setCondition(conds []any, now time.Time, typ, reason, msg string) []any {
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		if cm["type"] == typ {
			if cm["status"] != "True" {
				cm["status"] = "True"
				cm["lastTransitionTime"] = metav1.NewTime(now).UTC().Format(time.RFC3339)
				cm["reason"], cm["message"] = reason, msg
			}
			return conds
		}
	}
	return append(conds, map[string]any{
		"type": typ, "status": "True", "reason": reason, "message": msg,
		"lastTransitionTime": now.UTC().Format(time.RFC3339),
	})
}

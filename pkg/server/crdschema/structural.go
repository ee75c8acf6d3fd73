package crdschema

import (
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Structural is a structural schema compiled for pruning, defaulting and
// validating custom objects. It is immutable and safe for concurrent use.
type Structural struct {
	props       *apiextensionsv1.JSONSchemaProps
	root        *node
	hasDefaults bool
}

// New checks that props (a CRD version's spec.versions[i].schema.openAPIV3Schema)
// is a structural schema, as Kubernetes defines it, and returns it ready to
// use. Errors are relative to fldPath (the caller passes e.g.
// field.NewPath("spec","versions").Index(0).Child("schema","openAPIV3Schema"));
// the server answers them as 422.
//
// New applies the rules kube-apiserver applies to a newly created CRD; it
// keeps a reference to props, which the caller must not modify afterwards.
func New(props *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) (*Structural, field.ErrorList) {
	return build(props, fldPath, options{})
}

// options relax kube's rules for tests of code paths that CRDs cannot
// reach.
type options struct {
	// allowUniqueItems admits uniqueItems: true, which kube forbids in
	// CRDs because checking it is quadratic.
	allowUniqueItems bool
}

func build(props *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, opts options) (*Structural, field.ErrorList) {
	if props == nil {
		return nil, field.ErrorList{field.Required(fldPath, "must be specified")}
	}
	c := &compiler{opts: opts}
	if props.Nullable {
		c.errs = append(c.errs, field.Forbidden(fldPath.Child("nullable"), "nullable cannot be true at the root"))
	}
	root := c.structural(props, fldPath, rootLevel, scope{})
	c.completeness(props, fldPath)
	// Defaults are checked only against a sound schema, as in kube, so that
	// one mistake is not reported once more for every default below it.
	if len(c.errs) == 0 {
		c.checkDefaults(root, fldPath)
	}
	if len(c.errs) > 0 {
		sort.SliceStable(c.errs, func(i, j int) bool { return c.errs[i].Error() < c.errs[j].Error() })
		return nil, c.errs
	}
	root.flags |= fKeepMeta
	return &Structural{props: props, root: root, hasDefaults: root.has(fSubtreeDefaults)}, nil
}

// HasDefaults reports whether any node has a default, so callers skip
// Default on hot read paths.
func (s *Structural) HasDefaults() bool { return s.hasDefaults }

// Props returns the schema as given (for OpenAPI publication).
func (s *Structural) Props() *apiextensionsv1.JSONSchemaProps { return s.props }

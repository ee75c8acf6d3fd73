package registry

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
	"github.com/setpoint-dev/setpoint/pkg/server/crdschema/cel"
)

// customSchema is a custom resource version's compiled schema: the
// structural part prunes, defaults and validates, the rules are its CEL
// validations.
type customSchema struct {
	structural *crdschema.Structural
	rules      *cel.Validator
}

// compileSchema compiles a CRD version's schema; errors are relative to
// fldPath, the version's schema.openAPIV3Schema.
func compileSchema(props *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) (*customSchema, field.ErrorList) {
	st, errs := crdschema.New(props, fldPath)
	if len(errs) > 0 {
		return nil, errs
	}
	// The rules compile from the compiled structural schema, as kube
	// builds CEL types from its structural schema.
	rules, errs := cel.New(st, fldPath)
	if len(errs) > 0 {
		return nil, errs
	}
	return &customSchema{structural: st, rules: rules}, nil
}

// prune drops what the schema does not specify and fills in defaults,
// returning the dropped fields as fieldValidation reports them.
func (r *Resource) prune(obj map[string]any) []string {
	if r.custom == nil {
		return nil
	}
	unknown := r.custom.structural.Prune(obj)
	r.custom.structural.Default(obj)
	problems := make([]string, len(unknown))
	for i, p := range unknown {
		problems[i] = fmt.Sprintf("unknown field %q", trimDot(p))
	}
	return problems
}

func trimDot(p string) string {
	if len(p) > 0 && p[0] == '.' {
		return p[1:]
	}
	return p
}

// NormalizeStored prunes and defaults a stored custom object as its
// schema now says, which may have changed since the object was written,
// so reads see what a write would store today.
func (r *Resource) NormalizeStored(obj map[string]any) {
	if r.custom == nil {
		return
	}
	r.custom.structural.Prune(obj)
	if r.custom.structural.HasDefaults() {
		r.custom.structural.Default(obj)
	}
}

// Validate checks a custom object against its schema and validation
// rules; old is the stored object on update, nil on create. Updates
// ratchet as in kube-apiserver: errors about values the update leaves
// unchanged are dropped (crdschema.Structural.ValidateUpdate, and likewise
// for rules that do not use oldSelf). Built-in kinds are checked by their
// Go types when decoded.
func (r *Resource) Validate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	if r.custom == nil {
		return nil
	}
	var errs field.ErrorList
	if old != nil {
		errs = r.custom.structural.ValidateUpdate(obj, old)
	} else {
		errs = r.custom.structural.Validate(obj)
	}
	if r.custom.rules == nil {
		return errs
	}
	if blocksRules(errs) {
		// As kube-apiserver: rules would see values of the wrong type
		// or shape, so they are not run, and the answer says so. Its
		// value prints as kube 1.33's apimachinery prints a nil one.
		return append(errs, field.Invalid(nil, "null", "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	}
	return append(errs, r.custom.rules.Validate(ctx, obj, old)...)
}

// blocksRules reports whether schema errors keep the validation rules
// from running: kube's list of the errors after which a rule could see
// a value its type does not allow (a wrong type, a value outside the
// enum, a missing required field, too long a string or list).
func blocksRules(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// Structural returns a custom resource's checked schema, nil for
// built-in kinds and CRDs without one.
func (r *Resource) Structural() *crdschema.Structural {
	if r.custom == nil {
		return nil
	}
	return r.custom.structural
}

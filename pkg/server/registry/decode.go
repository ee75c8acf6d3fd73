package registry

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"

	"github.com/setpoint-dev/setpoint/internal/jsonscan"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/typedjson"
)

// FieldValidation is how a write treats unknown and duplicate fields.
type FieldValidation string

const (
	FieldIgnore FieldValidation = "Ignore"
	FieldWarn   FieldValidation = "Warn"
	FieldStrict FieldValidation = "Strict"
)

// Scheme holds the Go types of the typed built-in kinds. It is the schema
// those kinds are validated against until they get OpenAPI schemas.
var Scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, coordinationv1.AddToScheme, eventsv1.AddToScheme, apiextensionsv1.AddToScheme,
		authenticationv1.AddToScheme, autoscalingv1.AddToScheme, discoveryv1.AddToScheme, policyv1.AddToScheme,
		appsv1.AddToScheme, batchv1.AddToScheme, rbacv1.AddToScheme, authorizationv1.AddToScheme,
		certificatesv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(fmt.Sprintf("registry: building scheme: %v", err))
		}
	}
	return s
})

// DecodeTyped is Decode for a body that arrived already typed (a
// protobuf request): the object as unstructured content. A protobuf body
// has no unknown or duplicate fields to report.
func (r *Resource) DecodeTyped(typed runtime.Object) (map[string]any, error) {
	if !r.Typed {
		return nil, fmt.Errorf("%w: %s takes no typed body", ErrDecode, r.GroupVersionKind())
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDecode, err)
	}
	return obj, nil
}

// Decode turns a JSON request body into unstructured content. Typed kinds
// go through their Go type, which rejects wrongly typed fields and drops
// unknown ones; the unknown and duplicate fields found become warnings,
// or a *StrictError under FieldStrict. Custom resources are kept as sent
// (numbers stay int64 where they are integers). A typedjson.Decoder, and
// for custom resources jsonscan.DecodeObject, answer first wherever their
// answer is exactly the decoder's.
func (r *Resource) Decode(body []byte, fv FieldValidation) (obj map[string]any, warnings []string, err error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, nil, fmt.Errorf("%w: body must be a JSON object", ErrDecode)
	}
	var strict []error
	if !r.Typed {
		var ok bool
		if obj, ok = jsonscan.DecodeObject(body); !ok {
			strict, err = sigsjson.UnmarshalStrict(body, &obj, sigsjson.DisallowDuplicateFields)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: %v", ErrDecode, err)
			}
		}
		for _, p := range r.prune(obj) {
			strict = append(strict, errors.New(p))
		}
	} else {
		if d := typedjson.For(Scheme().AllKnownTypes()[r.GroupVersionKind()]); d != nil {
			if obj, ok := d.Decode(body); ok {
				return obj, nil, nil // no strict problems, so no warnings
			}
		}
		typed, err := Scheme().New(r.GroupVersionKind())
		if err != nil {
			return nil, nil, fmt.Errorf("registry: %s has no Go type: %w", r.GroupVersionKind(), err)
		}
		strict, err = sigsjson.UnmarshalStrict(body, typed, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrDecode, err)
		}
		obj, err = runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrDecode, err)
		}
	}
	if len(strict) > 0 && fv != FieldIgnore {
		problems := make([]string, len(strict))
		for i, e := range strict {
			problems[i] = e.Error()
		}
		if fv == FieldStrict {
			return nil, nil, &StrictError{Problems: problems}
		}
		warnings = problems
	}
	return obj, warnings, nil
}

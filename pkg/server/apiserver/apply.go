package apiserver

import (
	"encoding/json"
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

const applyPatchType = "application/apply-patch+yaml"

// patchOptionsKind names the options in 422 answers about them.
var patchOptionsKind = schema.GroupKind{Group: "meta.k8s.io", Kind: "PatchOptions"}

// apply serves a server-side apply: body is the manager's whole intent
// for the fields it names, merged into the live object by field
// ownership. Fields another manager owns are conflicts unless force is
// set, which takes them over. An object that does not exist is created.
func (s *Server) apply(w http.ResponseWriter, r *http.Request, req *request, body []byte) error {
	res := req.res
	manager := req.query.Get("fieldManager")
	if manager == "" {
		return apierror.Invalid(patchOptionsKind, "", field.ErrorList{field.Required(field.NewPath("fieldManager"), "is required for apply patch")})
	}
	force, err := params.Force(req.query)
	if err != nil {
		return err
	}
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return apierror.BadRequest("error decoding YAML: %v", err)
	}
	patch := &unstructured.Unstructured{}
	if err := params.UnmarshalJSON(js, &patch.Object); err != nil || patch.Object == nil {
		return apierror.BadRequest("the apply patch is not a YAML or JSON object")
	}
	if patch.GetAPIVersion() == "" || patch.GetKind() == "" {
		return apierror.BadRequest("Object 'apiVersion' and 'Kind' must be set in an apply patch")
	}
	if n := patch.GetName(); n != "" && n != req.name {
		return apierror.BadRequest("the name of the object (%s) does not match the name on the URL (%s)", n, req.name)
	}
	fv, err := params.FieldValidation(req.query)
	if err != nil {
		return err
	}
	dryRun, err := params.DryRun(req.query)
	if err != nil {
		return err
	}
	dupWarnings, dupErr := params.ApplyDuplicateKeys(body, fv)
	var warned bool
	decode := func(merged map[string]any) (*unstructured.Unstructured, error) {
		if dupErr != nil {
			return nil, dupErr
		}
		b, err := json.Marshal(merged)
		if err != nil {
			return nil, apierror.Internal(err)
		}
		obj, warnings, err := res.Decode(b, fv)
		if err != nil {
			return nil, apierror.From(err, res.GroupResource(), req.name)
		}
		if !warned {
			setWarnings(w, append(append([]string(nil), dupWarnings...), warnings...))
			warned = true
		}
		u := &unstructured.Unstructured{Object: obj}
		if err := generic.CheckTypeMeta(u, res); err != nil {
			return nil, err
		}
		return u, nil
	}
	b, created, err := s.objects.Apply(r.Context(), res, req.namespace, req.name, patch, generic.ApplyOptions{
		Subresource: req.subresource, Manager: manager, Force: force, DryRun: dryRun, Decode: decode,
	})
	if err != nil {
		return err
	}
	if created {
		return s.writeObject(w, r, res, http.StatusCreated, b)
	}
	return s.writeResult(w, r, req, http.StatusOK, b)
}

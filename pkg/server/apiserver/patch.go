package apiserver

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

const (
	jsonPatchType      = "application/json-patch+json"
	mergePatchType     = "application/merge-patch+json"
	strategicPatchType = "application/strategic-merge-patch+json"
)

func patchTypes(res *registry.Resource) []string {
	if res.Typed {
		return []string{jsonPatchType, mergePatchType, strategicPatchType, applyPatchType}
	}
	return []string{jsonPatchType, mergePatchType, applyPatchType}
}

func (s *Server) patch(w http.ResponseWriter, r *http.Request, req *request) error {
	res := req.res
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return apierror.UnsupportedMediaType(ct, patchTypes(res))
	}
	switch mt {
	case jsonPatchType, mergePatchType:
	case applyPatchType:
		body, err := params.ReadBody(w, r)
		if err != nil {
			return err
		}
		return s.apply(w, r, req, body)
	case strategicPatchType:
		if !res.Typed {
			return apierror.UnsupportedMediaType(ct, patchTypes(res))
		}
	default:
		return apierror.UnsupportedMediaType(ct, patchTypes(res))
	}
	if req.query.Get("force") != "" {
		return apierror.Invalid(patchOptionsKind, "", field.ErrorList{field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch")})
	}
	body, err := params.ReadBody(w, r)
	if err != nil {
		return err
	}
	var jp jsonpatch.Patch
	if mt == jsonPatchType {
		if jp, err = jsonpatch.DecodePatch(body); err != nil {
			return apierror.BadRequest("the JSON patch is not valid: %v", err)
		}
		if len(jp) > maxJSONPatchOps {
			return apierror.RequestTooLarge("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOps, len(jp))
		}
	} else {
		var probe map[string]any
		if err := params.UnmarshalJSON(body, &probe); err != nil {
			return apierror.BadRequest("the patch is not a JSON object: %v", err)
		}
	}
	fv, err := params.FieldValidation(req.query)
	if err != nil {
		return err
	}
	dryRun, err := params.DryRun(req.query)
	if err != nil {
		return err
	}
	if req.subresource == registry.SubresourceScale {
		return s.writeUpdate(w, r, req, dryRun, generic.DesiredScale(res, req.name, func(scale []byte) ([]byte, error) {
			return applyPatch(mt, jp, body, scale, generic.ScaleGVK)
		}))
	}
	var warned bool
	return s.writeUpdate(w, r, req, dryRun, func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		curJSON, err := json.Marshal(cur.Object)
		if err != nil {
			return nil, apierror.Internal(err)
		}
		patched, err := applyPatch(mt, jp, body, curJSON, res.GroupVersionKind())
		if err != nil && mt == jsonPatchType {
			return nil, apierror.JSONPatchRejected()
		}
		if err != nil {
			return nil, apierror.Unprocessable(res, req.name, err)
		}
		obj, warnings, err := res.Decode(patched, fv)
		if err != nil {
			return nil, apierror.From(err, res.GroupResource(), req.name)
		}
		if !warned {
			setWarnings(w, warnings)
			warned = true
		}
		u := &unstructured.Unstructured{Object: obj}
		if err := generic.CheckTypeMeta(u, res); err != nil {
			return nil, err
		}
		// A resourceVersion the patch leaves as it was is not a
		// precondition: the patch was applied to the current object.
		if u.GetResourceVersion() == cur.GetResourceVersion() {
			u.SetResourceVersion("")
		}
		return u, nil
	})
}

// applyPatch applies a JSON, merge or strategic merge patch to the JSON
// of an object of kind gvk.
func applyPatch(mt string, jp jsonpatch.Patch, body, cur []byte, gvk schema.GroupVersionKind) ([]byte, error) {
	switch mt {
	case jsonPatchType:
		return applyJSONPatch(jp, cur)
	case mergePatchType:
		return jsonpatch.MergePatch(cur, body)
	default:
		typed, err := registry.Scheme().New(gvk)
		if err != nil {
			return nil, err
		}
		return strategicpatch.StrategicMergePatch(cur, body, typed)
	}
}

// applyJSONPatch applies jp, turning the library's panics into errors:
// it dereferences an operation's missing value ({"op":"replace",
// "path":""} without one), and a malformed patch must be refused, not
// end the request.
func applyJSONPatch(jp jsonpatch.Patch, cur []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("json patch: %v", p)
		}
	}()
	return jp.Apply(cur)
}

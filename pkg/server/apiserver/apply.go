package apiserver

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/pkg/storage"
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
	force, err := parseForce(req)
	if err != nil {
		return err
	}
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return apierror.BadRequest("error decoding YAML: %v", err)
	}
	patch := &unstructured.Unstructured{}
	if err := unmarshalJSON(js, &patch.Object); err != nil || patch.Object == nil {
		return apierror.BadRequest("the apply patch is not a YAML or JSON object")
	}
	if patch.GetAPIVersion() == "" || patch.GetKind() == "" {
		return apierror.BadRequest("Object 'apiVersion' and 'Kind' must be set in an apply patch")
	}
	if n := patch.GetName(); n != "" && n != req.name {
		return apierror.BadRequest("the name of the object (%s) does not match the name on the URL (%s)", n, req.name)
	}
	if req.subresource == "scale" {
		if patch, err = scaleApplyPatch(res, patch); err != nil {
			return err
		}
	}
	if err := checkTypeMeta(patch, res); err != nil {
		return err
	}
	fm, err := s.fields.get(res, req.subresource)
	if err != nil {
		return apierror.Internal(err)
	}
	fv, err := parseFieldValidation(req)
	if err != nil {
		return err
	}
	dryRun, err := parseDryRun(req)
	if err != nil {
		return err
	}
	dupWarnings, dupErr := applyDuplicateKeys(body, fv)
	merge := func(live *unstructured.Unstructured) (*unstructured.Unstructured, []string, error) {
		out, err := fm.Apply(live, patch.DeepCopy(), manager, force)
		if err != nil {
			return nil, nil, applyError(err)
		}
		if dupErr != nil {
			return nil, nil, dupErr
		}
		u, ok := out.(*unstructured.Unstructured)
		if !ok {
			return nil, nil, apierror.Internal(errors.New("field manager returned a typed object"))
		}
		b, err := json.Marshal(u.Object)
		if err != nil {
			return nil, nil, apierror.Internal(err)
		}
		obj, warnings, err := res.Decode(b, fv)
		if err != nil {
			return nil, nil, apierror.From(err, res.GroupResource(), req.name)
		}
		warnings = append(append([]string(nil), dupWarnings...), warnings...)
		u = &unstructured.Unstructured{Object: obj}
		if err := checkTypeMeta(u, res); err != nil {
			return nil, nil, err
		}
		return u, warnings, nil
	}
	req.apply = true
	if req.subresource == "" {
		_, err := s.store.Get(r.Context(), res.Key(req.namespace, req.name))
		if errors.Is(err, storage.ErrNotFound) {
			live := emptyObject(res)
			live.SetName(req.name)
			if res.Namespaced {
				live.SetNamespace(req.namespace)
			}
			u, warnings, err := merge(live)
			if err != nil {
				return err
			}
			u.SetName(req.name)
			u.SetResourceVersion("")
			err = s.createObject(w, r, req, u, warnings)
			if se := (*apierror.StatusError)(nil); !errors.As(err, &se) || se.Status.Reason != metav1.StatusReasonAlreadyExists {
				return err
			}
			// Created meanwhile by someone else: apply to theirs.
		}
	}
	var warned bool
	return s.writeUpdate(w, r, req, dryRun, func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		u, warnings, err := merge(cur)
		if err != nil {
			return nil, err
		}
		if !warned {
			setWarnings(w, warnings)
			warned = true
		}
		// The patch is applied to the current object, so its
		// resourceVersion is no precondition unless the patch set one.
		if patch.GetResourceVersion() == "" {
			u.SetResourceVersion("")
		}
		return u, nil
	})
}

func parseForce(req *request) (bool, error) {
	switch v := req.query.Get("force"); v {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, apierror.BadRequest("force must be true or false, not %q", v)
	}
}

// applyError turns the field manager's errors into Statuses: conflicts
// come as a ready 409 naming each field and its manager; anything else
// is the patch not fitting the schema.
func applyError(err error) error {
	var as interface{ Status() metav1.Status }
	if errors.As(err, &as) {
		st := as.Status()
		st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		return &apierror.StatusError{Status: st}
	}
	return apierror.BadRequest("%v", err)
}

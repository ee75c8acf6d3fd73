package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// scaleGVK is the kind every scale subresource reads and writes.
var scaleGVK = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// scaleResource describes autoscaling/v1 Scale for encoding and decoding.
var scaleResource = &registry.Resource{
	Group: scaleGVK.Group, Version: scaleGVK.Version, Kind: scaleGVK.Kind,
	Plural: "scale", Namespaced: true, Typed: true,
}

// writeResult writes an object read or written through req: the object
// itself, or its Scale for the scale subresource.
func (s *Server) writeResult(w http.ResponseWriter, r *http.Request, req *request, code int, obj []byte) error {
	if req.subresource != "scale" {
		return s.writeObject(w, r, req.res, code, obj)
	}
	u, err := parseObject(obj)
	if err != nil {
		return apierror.Internal(err)
	}
	b, err := json.Marshal(scaleOf(req.res.Scale, u))
	if err != nil {
		return apierror.Internal(err)
	}
	return s.writeObject(w, r, scaleResource, code, b)
}

// scaleOf is the Scale view of a custom object: its identity, the
// desired replicas from specReplicasPath, the observed ones and the
// selector from status.
func scaleOf(sc *registry.Scale, u *unstructured.Unstructured) map[string]any {
	meta := map[string]any{
		"name": u.GetName(), "uid": string(u.GetUID()), "resourceVersion": u.GetResourceVersion(),
		"creationTimestamp": u.Object["metadata"].(map[string]any)["creationTimestamp"],
	}
	if ns := u.GetNamespace(); ns != "" {
		meta["namespace"] = ns
	}
	spec := map[string]any{}
	if n, ok := replicasAt(u, sc.SpecReplicasPath); ok {
		spec["replicas"] = n
	}
	status := map[string]any{"replicas": int64(0)}
	if n, ok := replicasAt(u, sc.StatusReplicasPath); ok {
		status["replicas"] = n
	}
	if sc.LabelSelectorPath != "" {
		if sel, ok, _ := unstructured.NestedString(u.Object, splitFieldPath(sc.LabelSelectorPath)...); ok {
			status["selector"] = sel
		}
	}
	return map[string]any{
		"kind": scaleGVK.Kind, "apiVersion": scaleGVK.GroupVersion().String(),
		"metadata": meta, "spec": spec, "status": status,
	}
}

func replicasAt(u *unstructured.Unstructured, path string) (int64, bool) {
	v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, splitFieldPath(path)...)
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	}
	return 0, false
}

func splitFieldPath(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "."), ".")
}

// updateScale serves PUT on the scale subresource: the body is a Scale,
// and only its spec.replicas is written, under its resourceVersion as a
// precondition.
func (s *Server) updateScale(w http.ResponseWriter, r *http.Request, req *request) error {
	bf, err := requestFormat(r.Header.Get("Content-Type"), scaleResource)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	if body, err = jsonBody(bf, body, scaleGVK); err != nil {
		return err
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := unmarshalJSON(body, &tm); err != nil {
		return apierror.BadRequest("the body is not a valid Scale: %v", err)
	}
	if (tm.Kind != "" && tm.Kind != scaleGVK.Kind) || (tm.APIVersion != "" && tm.APIVersion != scaleGVK.GroupVersion().String()) {
		return apierror.BadRequest("the body is a %s %s, not a %s", tm.APIVersion, tm.Kind, scaleGVK)
	}
	dryRun, err := parseDryRun(req)
	if err != nil {
		return err
	}
	return s.writeUpdate(w, r, req, dryRun, func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return patchScale(req, cur, func([]byte) ([]byte, error) { return body, nil })
	})
}

// patchScale computes the Scale the request wants from the current one
// and writes its replicas into the object.
func patchScale(req *request, cur *unstructured.Unstructured, change func(scale []byte) ([]byte, error)) (*unstructured.Unstructured, error) {
	sc := req.res.Scale
	curScale, err := json.Marshal(scaleOf(sc, cur))
	if err != nil {
		return nil, apierror.Internal(err)
	}
	b, err := change(curScale)
	if err != nil {
		return nil, apierror.Unprocessable(scaleResource, req.name, err)
	}
	var want struct {
		Metadata struct {
			Name            string `json:"name"`
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Spec struct {
			Replicas *json.Number `json:"replicas"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		return nil, apierror.BadRequest("the body is not a valid Scale: %v", err)
	}
	if want.Metadata.Name != "" && want.Metadata.Name != req.name {
		return nil, apierror.BadRequest("the name of the object (%s) does not match the name on the URL (%s)", want.Metadata.Name, req.name)
	}
	replicas := int64(0)
	if want.Spec.Replicas != nil {
		n, err := strconv.ParseInt(want.Spec.Replicas.String(), 10, 32)
		if err != nil {
			return nil, apierror.Invalid(scaleGVK.GroupKind(), req.name, field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), want.Spec.Replicas.String(), "must be an integer")})
		}
		replicas = n
	}
	if replicas < 0 {
		return nil, apierror.Invalid(scaleGVK.GroupKind(), req.name, field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), replicas, "must be greater than or equal to 0")})
	}
	if err := unstructured.SetNestedField(cur.Object, replicas, splitFieldPath(sc.SpecReplicasPath)...); err != nil {
		return nil, apierror.Internal(fmt.Errorf("setting %s: %w", sc.SpecReplicasPath, err))
	}
	// The Scale's resourceVersion is the object's: a precondition if
	// the client sent one.
	cur.SetResourceVersion(want.Metadata.ResourceVersion)
	return cur, nil
}

// scaleApplyPatch turns a server-side apply of a Scale into the same
// apply on the object: the Scale's replicas at specReplicasPath. The
// manager then owns that field of the object, with subresource scale,
// as kube-apiserver records it.
func scaleApplyPatch(res *registry.Resource, scale *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if gvk := scale.GroupVersionKind(); gvk != scaleGVK {
		return nil, apierror.BadRequest("the body is a %s, not a %s", gvk, scaleGVK)
	}
	patch := emptyObject(res)
	patch.SetName(scale.GetName())
	patch.SetNamespace(scale.GetNamespace())
	patch.SetResourceVersion(scale.GetResourceVersion())
	if n, ok, _ := unstructured.NestedFieldNoCopy(scale.Object, "spec", "replicas"); ok {
		if err := unstructured.SetNestedField(patch.Object, n, splitFieldPath(res.Scale.SpecReplicasPath)...); err != nil {
			return nil, apierror.BadRequest("spec.replicas: %v", err)
		}
	}
	return patch, nil
}

package generic

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// ScaleGVK is the kind every scale subresource reads and writes.
var ScaleGVK = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// ScaleResource describes autoscaling/v1 Scale for encoding and decoding.
var ScaleResource = &registry.Resource{
	Group: ScaleGVK.Group, Version: ScaleGVK.Version, Kind: ScaleGVK.Kind,
	Plural: "scale", Namespaced: true, Typed: true,
}

// ScaleOf is the Scale view of an object, in served JSON: its identity,
// the desired replicas from specReplicasPath, the observed ones and the
// selector from status.
func ScaleOf(res *registry.Resource, obj []byte) ([]byte, error) {
	u, err := ParseObject(obj)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return jsonMarshal(scaleOf(res, u))
}

func scaleOf(res *registry.Resource, u *unstructured.Unstructured) map[string]any {
	sc := res.Scale
	meta := map[string]any{
		"name": u.GetName(), "uid": string(u.GetUID()), "resourceVersion": u.GetResourceVersion(),
		"creationTimestamp": u.Object["metadata"].(map[string]any)["creationTimestamp"],
	}
	if ns := u.GetNamespace(); ns != "" {
		meta["namespace"] = ns
	}
	spec := map[string]any{}
	// autoscaling/v1 omits a desired count of zero (omitempty), as
	// kube-apiserver serves every Scale.
	if n, ok := replicasAt(u, sc.SpecReplicasPath); ok && n != 0 {
		spec["replicas"] = n
	}
	status := map[string]any{"replicas": int64(0)}
	if n, ok := replicasAt(u, sc.StatusReplicasPath); ok {
		status["replicas"] = n
	}
	if ss, ok := res.Strategy.(registry.ScaleSelectorStrategy); ok {
		// An empty selector is omitted, as autoscaling/v1 encodes it.
		if sel := ss.ScaleSelector(u.Object); sel != "" {
			status["selector"] = sel
		}
	} else if sc.LabelSelectorPath != "" {
		if sel, ok, _ := unstructured.NestedString(u.Object, splitFieldPath(sc.LabelSelectorPath)...); ok {
			status["selector"] = sel
		}
	}
	return map[string]any{
		"kind": ScaleGVK.Kind, "apiVersion": ScaleGVK.GroupVersion().String(),
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

// DesiredScale is the Desired of a scale write: change computes the
// Scale the request wants (JSON) from the current one, and only its
// spec.replicas is written into the object, under its resourceVersion as
// a precondition.
func DesiredScale(res *registry.Resource, name string, change func(scale []byte) ([]byte, error)) Desired {
	return func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		sc := res.Scale
		curScale, err := json.Marshal(scaleOf(res, cur))
		if err != nil {
			return nil, apierror.Internal(err)
		}
		b, err := change(curScale)
		if err != nil {
			return nil, apierror.Unprocessable(ScaleResource, name, err)
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
		if want.Metadata.Name != "" && want.Metadata.Name != name {
			return nil, apierror.BadRequest("the name of the object (%s) does not match the name on the URL (%s)", want.Metadata.Name, name)
		}
		replicas := int64(0)
		if want.Spec.Replicas != nil {
			n, err := strconv.ParseInt(want.Spec.Replicas.String(), 10, 32)
			if err != nil {
				return nil, apierror.Invalid(ScaleGVK.GroupKind(), name, field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), want.Spec.Replicas.String(), "must be an integer")})
			}
			replicas = n
		}
		if replicas < 0 {
			return nil, apierror.Invalid(ScaleGVK.GroupKind(), name, field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), replicas, "must be greater than or equal to 0")})
		}
		if err := unstructured.SetNestedField(cur.Object, replicas, splitFieldPath(sc.SpecReplicasPath)...); err != nil {
			return nil, apierror.Internal(fmt.Errorf("setting %s: %w", sc.SpecReplicasPath, err))
		}
		// The Scale's resourceVersion is the object's: a precondition if
		// the client sent one.
		cur.SetResourceVersion(want.Metadata.ResourceVersion)
		return cur, nil
	}
}

// scaleApplyPatch turns a server-side apply of a Scale into the same
// apply on the object: the Scale's replicas at specReplicasPath. The
// manager then owns that field of the object, with subresource scale,
// as kube-apiserver records it.
func scaleApplyPatch(res *registry.Resource, scale *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if gvk := scale.GroupVersionKind(); gvk != ScaleGVK {
		return nil, apierror.BadRequest("the body is a %s, not a %s", gvk, ScaleGVK)
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

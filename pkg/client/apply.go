package client

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Applier is what Apply needs of a client: *Client and a manager's
// client both are one.
type Applier interface {
	Patch(ctx context.Context, obj Object, patchType types.PatchType, data []byte, opts ...WriteOption) error
	Scheme() *runtime.Scheme
}

// Apply sends obj to the server as a server-side apply configuration:
// the fields obj sets are what the FieldManager option's manager (which
// the server requires) wants, merged into the live object by field
// ownership, and the object is created if it does not exist. obj is
// then read back from the answer. A field another manager owns is a
// Conflict unless ForceOwnership is given.
//
// Every field obj serializes is claimed, so prefer unstructured objects
// holding only the intended fields: a typed object's non-omitempty zero
// values would be applied too. managedFields and a null
// creationTimestamp are left out; a resourceVersion, if set, is a
// precondition.
func Apply(ctx context.Context, c Applier, obj Object, opts ...WriteOption) error {
	gvk, err := kindOf(c.Scheme(), obj)
	if err != nil {
		return err
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("client: encoding the apply configuration: %w", err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("client: encoding the apply configuration: %w", err)
	}
	cfg["apiVersion"], cfg["kind"] = gvk.GroupVersion().String(), gvk.Kind
	if meta, ok := cfg["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
		if ts, ok := meta["creationTimestamp"]; ok && ts == nil {
			delete(meta, "creationTimestamp")
		}
	}
	if b, err = json.Marshal(cfg); err != nil {
		return fmt.Errorf("client: encoding the apply configuration: %w", err)
	}
	return c.Patch(ctx, obj, types.ApplyPatchType, b, opts...)
}

// kindOf is obj's kind: its own for unstructured objects, the scheme's
// for typed ones.
func kindOf(scheme *runtime.Scheme, obj Object) (schema.GroupVersionKind, error) {
	if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
		if _, isUnstructured := obj.(runtime.Unstructured); isUnstructured || scheme == nil || scheme.Recognizes(gvk) {
			return gvk, nil
		}
	}
	if scheme == nil {
		return schema.GroupVersionKind{}, fmt.Errorf("client: %T has no apiVersion and kind", obj)
	}
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gvks[0], nil
}

// ForceOwnership lets a server-side apply take over fields other
// managers own instead of failing with a Conflict.
var ForceOwnership WriteOption = forceOwnership{}

type forceOwnership struct{}

func (forceOwnership) ApplyToWrite(o *WriteOptions) { o.Force = true }

package finalizer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// Patcher is the one write this package makes. client.Writer and
// client.Interface have it.
type Patcher interface {
	Patch(ctx context.Context, obj client.Object, patchType types.PatchType, data []byte, opts ...client.WriteOption) error
}

var (
	// ErrDeleting is returned by Add for an object whose deletion has
	// started: the server would refuse the new finalizer.
	ErrDeleting = errors.New("object is being deleted")
	// ErrNoResourceVersion is returned for an object that was not read
	// from the server: without its resourceVersion a write could not be
	// made conditional.
	ErrNoResourceVersion = errors.New("object has no resourceVersion")
)

// Has reports whether obj carries the finalizer name.
func Has(obj metav1.Object, name string) bool {
	return slices.Contains(obj.GetFinalizers(), name)
}

// Add puts the finalizer name on obj on the server, unless obj already
// has it, and reads the server's copy back into obj. It reports whether
// it wrote. A Conflict error means obj is stale.
func Add(ctx context.Context, c Patcher, obj client.Object, name string) (bool, error) {
	if err := ValidateName(name); err != nil {
		return false, err
	}
	if Has(obj, name) {
		return false, nil
	}
	if obj.GetDeletionTimestamp() != nil {
		return false, fmt.Errorf("adding finalizer %s to %s: %w", name, objectName(obj), ErrDeleting)
	}
	fins := append(slices.Clip(obj.GetFinalizers()), name)
	if err := setFinalizers(ctx, c, obj, fins); err != nil {
		return false, fmt.Errorf("adding finalizer %s to %s: %w", name, objectName(obj), err)
	}
	reconcile.Logger(ctx).DebugContext(ctx, "finalizer added", "finalizer", name, "object", objectName(obj), "resourceVersion", obj.GetResourceVersion())
	return true, nil
}

// Remove takes the finalizer name off obj on the server, if obj has it,
// and reads the server's copy back into obj. It reports whether it
// wrote. Removing the last finalizer of an object being deleted lets the
// server delete it. A Conflict error means obj is stale.
func Remove(ctx context.Context, c Patcher, obj client.Object, name string) (bool, error) {
	if !Has(obj, name) {
		return false, nil
	}
	fins := slices.DeleteFunc(slices.Clone(obj.GetFinalizers()), func(f string) bool { return f == name })
	if err := setFinalizers(ctx, c, obj, fins); err != nil {
		return false, fmt.Errorf("removing finalizer %s from %s: %w", name, objectName(obj), err)
	}
	reconcile.Logger(ctx).DebugContext(ctx, "finalizer removed", "finalizer", name, "object", objectName(obj), "resourceVersion", obj.GetResourceVersion())
	return true, nil
}

// setFinalizers replaces obj's finalizers with a merge patch that also
// names obj's resourceVersion. The server treats a resourceVersion the
// patch changes as a precondition, so the whole list is replaced only if
// nobody wrote the object since it was read; that is what makes a
// whole-list replacement safe.
func setFinalizers(ctx context.Context, c Patcher, obj client.Object, fins []string) error {
	rv := obj.GetResourceVersion()
	if rv == "" {
		return ErrNoResourceVersion
	}
	type metadata struct {
		ResourceVersion string `json:"resourceVersion"`
		// nil encodes as null, which deletes the field: the server
		// then stores no empty list.
		Finalizers []string `json:"finalizers"`
	}
	if len(fins) == 0 {
		fins = nil
	}
	body, err := json.Marshal(struct {
		Metadata metadata `json:"metadata"`
	}{metadata{rv, fins}})
	if err != nil {
		return err
	}
	return c.Patch(ctx, obj, types.MergePatchType, body)
}

func objectName(obj metav1.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

package garbagecollector

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// objectRef names one object: where to GET it and which incarnation
// (uid) is meant.
type objectRef struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	UID        types.UID
}

func (r objectRef) String() string {
	s := r.APIVersion + "/" + r.Kind + " "
	if r.Namespace != "" {
		s += r.Namespace + "/"
	}
	return s + r.Name + " uid=" + string(r.UID)
}

func (r objectRef) groupKind() schema.GroupKind {
	return schema.FromAPIVersionAndKind(r.APIVersion, r.Kind).GroupKind()
}

// ownerRef is where the owner a reference names would be found from a
// dependent in namespace ns: references carry no namespace, so a
// namespaced owner must live beside its dependent.
func ownerRef(ref metav1.OwnerReference, ns string) objectRef {
	return objectRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ns, Name: ref.Name, UID: ref.UID}
}

// sameCoordinates reports whether a reference names the object id is.
// Versions may differ: every version of a group's kind is one object.
func sameCoordinates(ref metav1.OwnerReference, id objectRef) bool {
	return ref.UID == id.UID && ref.Name == id.Name && ref.Kind == id.Kind &&
		schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).Group == id.groupKind().Group
}

// observation is what the collector keeps of one object an informer
// reported.
type observation struct {
	id     objectRef
	owners []metav1.OwnerReference
	// deleting: deletionTimestamp is set.
	deleting   bool
	finalizers []string
}

// observe takes what the graph needs from obj, whose kind is gvk.
// Owners are copied: obj belongs to the informer's cache.
func observe(gvk schema.GroupVersionKind, obj metav1.Object) observation {
	return observation{
		id: objectRef{
			APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
			Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID(),
		},
		owners:     slices.Clone(obj.GetOwnerReferences()),
		deleting:   obj.GetDeletionTimestamp() != nil,
		finalizers: obj.GetFinalizers(),
	}
}

// deletingDependents: the owner waits for its dependents (Foreground).
func (o *observation) deletingDependents() bool {
	return o != nil && o.deleting && slices.Contains(o.finalizers, metav1.FinalizerDeleteDependents)
}

// orphaning: the owner waits for its dependents to be released (Orphan).
func (o *observation) orphaning() bool {
	return o != nil && o.deleting && slices.Contains(o.finalizers, metav1.FinalizerOrphanDependents)
}

// blocks reports whether ref holds its owner's foreground deletion.
func blocks(ref metav1.OwnerReference) bool {
	return ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion
}

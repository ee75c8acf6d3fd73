package crdcleanup

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// listPage bounds each metadata listing, so a kind with a very large
// number of objects is read in pieces.
const listPage = 1000

// instancesAPI is what deleting a CRD's custom resources needs of the
// server.
type instancesAPI interface {
	List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error
	DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error
}

// kindOf is the kind a CRD defines, at its storage version: every
// version reaches the same objects.
func kindOf(crd *apiextensionsv1.CustomResourceDefinition) schema.GroupVersionKind {
	version := ""
	for _, v := range crd.Spec.Versions {
		if v.Storage || (version == "" && v.Served) {
			version = v.Name
		}
	}
	return schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
}

// deleteInstances deletes every object of kind gvk, one deletecollection
// per namespace that holds any (the one request every server offers for
// a namespaced kind), and returns how many are still there: held by
// finalizers.
func deleteInstances(ctx context.Context, api instancesAPI, gvk schema.GroupVersionKind, namespaced bool) (int, error) {
	items, err := listAll(ctx, api, gvk)
	if err != nil || len(items) == 0 {
		return len(items), err
	}
	// Namespaces with objects not yet being deleted; "" for a
	// cluster-scoped kind.
	var scopes []string
	seen := map[string]bool{}
	for _, o := range items {
		if o.DeletionTimestamp == nil && !seen[o.Namespace] {
			seen[o.Namespace] = true
			scopes = append(scopes, o.Namespace)
		}
	}
	if len(scopes) == 0 {
		return len(items), nil
	}
	background := client.PropagationPolicy(metav1.DeletePropagationBackground)
	for _, ns := range scopes {
		opts := []client.DeleteAllOfOption{background}
		if namespaced {
			opts = append(opts, client.InNamespace(ns))
		}
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(gvk)
		if err := api.DeleteAllOf(ctx, obj, opts...); err != nil && !client.IsNotFound(err) {
			return len(items), err
		}
	}
	items, err = listAll(ctx, api, gvk)
	return len(items), err
}

// listAll lists the metadata of every object of kind gvk, page by page.
func listAll(ctx context.Context, api instancesAPI, gvk schema.GroupVersionKind) ([]metav1.PartialObjectMetadata, error) {
	var items []metav1.PartialObjectMetadata
	cont := ""
	for {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		opts := []client.ListOption{client.Limit(listPage)}
		if cont != "" {
			opts = append(opts, client.Continue(cont))
		}
		if err := api.List(ctx, list, opts...); err != nil {
			return items, err
		}
		items = append(items, list.Items...)
		if cont = list.Continue; cont == "" {
			return items, nil
		}
	}
}

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Writes of CustomResourceDefinitions change what the server serves.
const crdGroup, crdKind = "apiextensions.k8s.io", "CustomResourceDefinition"

// Get reads the object named by key into obj, replacing what obj held.
func (c *Client) Get(ctx context.Context, key types.NamespacedName, obj Object) error {
	t, err := c.targetOf(ctx, obj, false)
	if err != nil {
		return err
	}
	path, err := t.objectPath(key.Namespace, key.Name, "")
	if err != nil {
		return err
	}
	rep, err := c.call(ctx, request{method: http.MethodGet, path: path, accept: t.accept(false)})
	if err != nil {
		return err
	}
	return c.decodeReply(rep, obj, t)
}

// List reads the objects opts select into list, replacing what it held.
func (c *Client) List(ctx context.Context, list ObjectList, opts ...ListOption) error {
	return c.list(ctx, list, listOptionsOf(opts))
}

func (c *Client) list(ctx context.Context, list ObjectList, o ListOptions) error {
	t, err := c.targetOf(ctx, list, true)
	if err != nil {
		return err
	}
	rep, err := c.call(ctx, request{
		method: http.MethodGet, path: t.path(o.Namespace, "", ""),
		query: listQuery(o.ListOptions, false), accept: t.accept(true),
	})
	if err != nil {
		return err
	}
	return c.decodeReply(rep, list, t)
}

// Create creates obj in its namespace and reads the server's copy (with
// uid, resourceVersion and defaults) back into it.
func (c *Client) Create(ctx context.Context, obj Object, opts ...WriteOption) error {
	t, err := c.writeTarget(ctx, obj)
	if err != nil {
		return err
	}
	if t.namespaced && obj.GetNamespace() == "" {
		return fmt.Errorf("%w: %s %q", ErrMissingNamespace, t.gvk.Kind, obj.GetName())
	}
	return c.write(ctx, http.MethodPost, t.path(obj.GetNamespace(), "", ""), obj, t, writeOptionsOf(opts))
}

// Update replaces obj on the server; its resourceVersion, when set, must
// be the current one (409 Conflict otherwise). The server's copy is read
// back into obj.
func (c *Client) Update(ctx context.Context, obj Object, opts ...WriteOption) error {
	return c.update(ctx, obj, "", opts)
}

// UpdateStatus replaces obj's status through the /status subresource;
// everything else in obj is ignored by the server.
func (c *Client) UpdateStatus(ctx context.Context, obj Object, opts ...WriteOption) error {
	return c.update(ctx, obj, "status", opts)
}

// UpdateSubresource replaces obj through one of its subresources, such
// as a namespace's "finalize"; the server's answer is read back into obj.
func (c *Client) UpdateSubresource(ctx context.Context, obj Object, subresource string, opts ...WriteOption) error {
	return c.update(ctx, obj, subresource, opts)
}

func (c *Client) update(ctx context.Context, obj Object, sub string, opts []WriteOption) error {
	t, err := c.writeTarget(ctx, obj)
	if err != nil {
		return err
	}
	path, err := t.objectPath(obj.GetNamespace(), obj.GetName(), sub)
	if err != nil {
		return err
	}
	return c.write(ctx, http.MethodPut, path, obj, t, writeOptionsOf(opts))
}

// writeTarget is targetOf for writes that send the whole object.
func (c *Client) writeTarget(ctx context.Context, obj Object) (target, error) {
	if _, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return target{}, ErrMetadataOnly
	}
	return c.targetOf(ctx, obj, false)
}

// write sends obj with method to path and decodes the answer into obj. A
// server that refuses a protobuf body (415) gets JSON, now and later.
func (c *Client) write(ctx context.Context, method, path string, obj Object, t target, o WriteOptions) error {
	for {
		body, ct, err := encode(obj, t.gvk, t.proto)
		if err != nil {
			return fmt.Errorf("client: encoding %s: %w", t.gvk.Kind, err)
		}
		rep, err := c.call(ctx, request{
			method: method, path: path, query: writeQuery(o),
			body: body, contentType: ct, accept: t.accept(false),
		})
		var se *StatusError
		if t.proto && errors.As(err, &se) && se.ErrStatus.Code == http.StatusUnsupportedMediaType {
			c.log.InfoContext(ctx, "server refused a protobuf body; sending JSON", "kind", t.gvk.String())
			c.jsonOnly.Store(t.gvk.GroupKind(), struct{}{})
			t.proto = false
			continue
		}
		if err != nil {
			return err
		}
		return c.written(ctx, rep, obj, t)
	}
}

// written finishes a write the server accepted: the answer goes into
// obj, and the context's write observer hears of it.
func (c *Client) written(ctx context.Context, rep reply, obj Object, t target) error {
	c.wrote(t)
	if err := c.decodeReply(rep, obj, t); err != nil {
		return err
	}
	observe(ctx, Write{GVK: t.gvk, Namespace: obj.GetNamespace(), Name: obj.GetName(), ResourceVersion: obj.GetResourceVersion()})
	return nil
}

// wrote notes a successful write: a CRD change may serve new kinds, so
// lookups that missed get to refresh at once.
func (c *Client) wrote(t target) {
	if t.gvk.Group == crdGroup && t.gvk.Kind == crdKind {
		if m, ok := c.mapper.(*DiscoveryMapper); ok {
			m.forgetMisses()
		}
	}
}

// Patch applies a patch of the given type (types.JSONPatchType,
// MergePatchType, StrategicMergePatchType for built-in kinds, or
// ApplyPatchType) to the object obj names, and reads the result into obj.
func (c *Client) Patch(ctx context.Context, obj Object, patchType types.PatchType, data []byte, opts ...WriteOption) error {
	t, err := c.targetOf(ctx, obj, false)
	if err != nil {
		return err
	}
	path, err := t.objectPath(obj.GetNamespace(), obj.GetName(), "")
	if err != nil {
		return err
	}
	rep, err := c.call(ctx, request{
		method: http.MethodPatch, path: path, query: writeQuery(writeOptionsOf(opts)),
		body: data, contentType: string(patchType), accept: t.accept(false),
	})
	if err != nil {
		return err
	}
	return c.written(ctx, rep, obj, t)
}

// Delete deletes the object obj names. obj is not changed: the server
// answers a delete with a Status or with the object being finalized,
// depending on the kind and its finalizers, and Get tells which.
func (c *Client) Delete(ctx context.Context, obj Object, opts ...DeleteOption) error {
	t, err := c.targetOf(ctx, obj, false)
	if err != nil {
		return err
	}
	path, err := t.objectPath(obj.GetNamespace(), obj.GetName(), "")
	if err != nil {
		return err
	}
	var o metav1.DeleteOptions
	for _, opt := range opts {
		opt.ApplyToDelete(&o)
	}
	if err := c.sendDelete(ctx, path, nil, o); err != nil {
		return err
	}
	c.wrote(t)
	observe(ctx, Write{GVK: t.gvk, Namespace: obj.GetNamespace(), Name: obj.GetName()})
	return nil
}

// DeleteAllOf deletes every object of obj's kind that opts select
// (deletecollection); InNamespace limits it to one namespace.
func (c *Client) DeleteAllOf(ctx context.Context, obj Object, opts ...DeleteAllOfOption) error {
	t, err := c.targetOf(ctx, obj, false)
	if err != nil {
		return err
	}
	var o DeleteAllOfOptions
	for _, opt := range opts {
		opt.ApplyToDeleteAllOf(&o)
	}
	if err := c.sendDelete(ctx, t.path(o.List.Namespace, "", ""), listQuery(o.List.ListOptions, false), o.Delete); err != nil {
		return err
	}
	c.wrote(t)
	return nil
}

// sendDelete sends a DELETE with DeleteOptions in the body, as JSON:
// every server reads that for every kind.
func (c *Client) sendDelete(ctx context.Context, path string, query url.Values, o metav1.DeleteOptions) error {
	r := request{method: http.MethodDelete, path: path, query: query, accept: mediaJSON}
	if !reflect.ValueOf(o).IsZero() {
		o.TypeMeta = metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}
		b, err := json.Marshal(&o)
		if err != nil {
			return fmt.Errorf("client: encoding DeleteOptions: %w", err)
		}
		r.body, r.contentType = b, mediaJSON
	}
	_, err := c.call(ctx, r)
	return err
}

// decodeReply decodes a 2xx answer into obj, labelled as the target's
// kind.
func (c *Client) decodeReply(rep reply, obj runtime.Object, t target) error {
	if err := decodeInto(rep.body, rep.contentType, obj); err != nil {
		return err
	}
	finish(obj, t.flavor, t.gvk, t.listGVK)
	return nil
}

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// CreateSubresource POSTs body to one of obj's subresources, such as a
// pod's "binding" (a v1.Binding) or "eviction" (a policy/v1 Eviction).
// obj only names the target: its kind, namespace and name; it is not
// sent and not changed. body travels as its own kind. When the server
// answers with the written object, it is read back into body; an answer
// that is a Status (kube-apiserver answers a binding with one) leaves
// body as sent.
func (c *Client) CreateSubresource(ctx context.Context, obj Object, subresource string, body Object, opts ...WriteOption) error {
	if subresource == "" {
		return fmt.Errorf("client: CreateSubresource on %s %q without a subresource", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName())
	}
	t, err := c.targetOf(ctx, obj, false)
	if err != nil {
		return err
	}
	path, err := t.objectPath(obj.GetNamespace(), obj.GetName(), subresource)
	if err != nil {
		return err
	}
	// The body's kind comes from the scheme, not discovery: kinds such
	// as Binding or Eviction need not be served as resources of their own.
	f, gvk, _, err := c.kindOf(body, false)
	if err != nil {
		return err
	}
	if f == flavorMetadata {
		return ErrMetadataOnly
	}
	proto := c.protobufFor(body, f, gvk)
	for {
		raw, ct, err := encode(body, gvk, proto)
		if err != nil {
			return fmt.Errorf("client: encoding %s: %w", gvk.Kind, err)
		}
		rep, err := c.call(ctx, request{
			method: http.MethodPost, path: path, query: writeQuery(writeOptionsOf(opts)),
			body: raw, contentType: ct, accept: accept(f, proto, false),
		})
		var se *StatusError
		if proto && errors.As(err, &se) && se.ErrStatus.Code == http.StatusUnsupportedMediaType {
			c.log.InfoContext(ctx, "server refused a protobuf body; sending JSON", "kind", gvk.String())
			c.jsonOnly.Store(gvk.GroupKind(), struct{}{})
			proto = false
			continue
		}
		if err != nil {
			return err
		}
		observe(ctx, Write{GVK: t.gvk, Namespace: obj.GetNamespace(), Name: obj.GetName()})
		if isStatusReply(rep) {
			return nil
		}
		return c.decodeReply(rep, body, target{flavor: f, gvk: gvk})
	}
}

// isStatusReply reports whether a 2xx answer is a metav1.Status rather
// than an object.
func isStatusReply(rep reply) bool {
	if mediaType(rep.contentType) == mediaProtobuf {
		env, err := openEnvelope(rep.body)
		return err == nil && env.kind.gvk.Kind == "Status" && env.kind.gvk.Version == "v1" &&
			(env.kind.gvk.Group == "" || env.kind.gvk.Group == "meta.k8s.io")
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	return json.Unmarshal(rep.body, &tm) == nil && tm.Kind == "Status" && (tm.APIVersion == "v1" || tm.APIVersion == "meta.k8s.io/v1")
}

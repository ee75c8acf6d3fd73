package client

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Reader reads objects. *Client reads the server; a manager's client
// reads its cache, with the same calls.
type Reader interface {
	Get(ctx context.Context, key types.NamespacedName, obj Object) error
	List(ctx context.Context, list ObjectList, opts ...ListOption) error
}

// Writer writes objects.
type Writer interface {
	Create(ctx context.Context, obj Object, opts ...WriteOption) error
	Update(ctx context.Context, obj Object, opts ...WriteOption) error
	UpdateStatus(ctx context.Context, obj Object, opts ...WriteOption) error
	Patch(ctx context.Context, obj Object, patchType types.PatchType, data []byte, opts ...WriteOption) error
	Delete(ctx context.Context, obj Object, opts ...DeleteOption) error
	DeleteAllOf(ctx context.Context, obj Object, opts ...DeleteAllOfOption) error
}

// Interface is a client that reads, writes and knows its kinds: what
// reconcilers are given.
type Interface interface {
	Reader
	Writer
	Scheme() *runtime.Scheme
	RESTMapper() meta.RESTMapper
}

var _ Interface = (*Client)(nil)

package namespace

import (
	"context"
	"net/http"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// fakeContent is a server holding objects of one kind in one namespace,
// deleted as a real one does: at once, or marked when finalizers hold
// them. refuseCollection answers deletecollection with 405.
type fakeContent struct {
	items            []metav1.PartialObjectMetadata
	refuseCollection bool
	calls            []string
}

func (f *fakeContent) ServerResources(context.Context) ([]client.Resource, error) { return nil, nil }

func (f *fakeContent) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	f.calls = append(f.calls, "list")
	list.(*metav1.PartialObjectMetadataList).Items = slices.Clone(f.items)
	return nil
}

func (f *fakeContent) Delete(_ context.Context, obj client.Object, _ ...client.DeleteOption) error {
	f.calls = append(f.calls, "delete "+obj.GetName())
	f.remove(func(o metav1.PartialObjectMetadata) bool { return o.Name == obj.GetName() })
	return nil
}

func (f *fakeContent) DeleteAllOf(context.Context, client.Object, ...client.DeleteAllOfOption) error {
	f.calls = append(f.calls, "deletecollection")
	if f.refuseCollection {
		return &client.StatusError{ErrStatus: metav1.Status{Code: http.StatusMethodNotAllowed, Reason: metav1.StatusReasonMethodNotAllowed}}
	}
	f.remove(func(metav1.PartialObjectMetadata) bool { return true })
	return nil
}

func (f *fakeContent) remove(match func(metav1.PartialObjectMetadata) bool) {
	now := metav1.Now()
	var keep []metav1.PartialObjectMetadata
	for _, o := range f.items {
		switch {
		case !match(o):
		case len(o.Finalizers) > 0:
			o.DeletionTimestamp = &now
		default:
			continue
		}
		keep = append(keep, o)
	}
	f.items = keep
}

func item(name string, finalizers ...string) metav1.PartialObjectMetadata {
	return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Finalizers: finalizers}}
}

// TestDeleteKindOneByOne deletes the objects of kinds without a usable
// deletecollection one at a time, skipping those already being deleted.
func TestDeleteKindOneByOne(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}
	for _, tc := range []struct {
		name string
		k    kind
		f    *fakeContent
		want []string
	}{
		{"not offered", kind{gvk: gvk}, &fakeContent{}, []string{"list", "delete a", "delete b", "list"}},
		{"refused", kind{gvk: gvk, collection: true}, &fakeContent{refuseCollection: true}, []string{"list", "deletecollection", "delete a", "delete b", "list"}},
		{"offered", kind{gvk: gvk, collection: true}, &fakeContent{}, []string{"list", "deletecollection", "list"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.items = []metav1.PartialObjectMetadata{item("a"), item("b", "example.com/f")}
			left, err := deleteKind(context.Background(), tc.f, "ns", tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) != 1 || left[0].Name != "b" || left[0].DeletionTimestamp == nil {
				t.Errorf("left %+v, want b, marked", left)
			}
			if !slices.Equal(tc.f.calls, tc.want) {
				t.Errorf("calls %q, want %q", tc.f.calls, tc.want)
			}
			// A second pass finds only a marked object: nothing to delete.
			tc.f.calls = nil
			if _, err := deleteKind(context.Background(), tc.f, "ns", tc.k); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tc.f.calls, []string{"list"}) {
				t.Errorf("second pass: calls %q, want one list", tc.f.calls)
			}
		})
	}
}

package garbagecollector_test

import (
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/garbagecollector"
)

func TestKindsServedAfterStartAreCollected(t *testing.T) {
	e := startEnv(t)
	sprocket := schema.GroupVersionKind{Group: "late." + testGroup, Version: "v1", Kind: "Sprocket"}
	crd := crdFor(sprocket, "sprockets", apiextensionsv1.NamespaceScoped)
	e.createCRD(crd)

	// The new kind as an owner deleted in the foreground: only a watch
	// of the kind shows the collector that deletion, and the held
	// dependent shows the collector acted on it.
	sp := e.create(sprocket)
	held := e.createWith(configMap, metav1.ObjectMeta{GenerateName: "held-", OwnerReferences: []metav1.OwnerReference{sp.ref(true)}, Finalizers: []string{holdFinalizer}})
	e.settle(sprocket, configMap)
	e.delete(sp, metav1.DeletePropagationForeground)
	e.eventually("the dependent of the new kind's owner is deleted", func() bool {
		m := e.get(held)
		return m != nil && m.DeletionTimestamp != nil
	})
	if m := e.get(sp); !deletingWith(m, metav1.FinalizerDeleteDependents) {
		t.Fatalf("owner %+v, want it waiting for its held dependent", m)
	}
	e.release(held)
	e.waitGoneInOrder(sp, held)

	// The new kind as a dependent.
	owner := e.create(configMap)
	dep := e.create(sprocket, owner.ref(true))
	e.delete(owner, "")
	e.waitGone(owner, dep)

	// Deleting the CRD stops the watch of its kind. The test finishes
	// the CRD's cleanup itself (it has no objects left), whether or not
	// a cleanup controller runs.
	if err := e.c.Delete(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	crdObj := obj{gvk: apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"), meta: crd.ObjectMeta}
	if e.get(crdObj) != nil {
		e.release(crdObj)
	}
	e.eventually("the collector stops watching the removed kind", func() bool {
		return strings.Contains(e.logs.String(), "kind no longer served")
	})
}

func TestDeletableKeepsOneVersionPerKind(t *testing.T) {
	gvr := func(g, v, r string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: g, Version: v, Resource: r}
	}
	all := []string{"get", "list", "watch", "create", "delete"}
	res := []client.Resource{
		{GVR: gvr("", "v1", "configmaps"), Kind: "ConfigMap", Verbs: all},
		{GVR: gvr("", "v1", "events"), Kind: "Event", Verbs: all},
		{GVR: gvr("x", "v2", "things"), Kind: "Thing", Verbs: all},
		{GVR: gvr("x", "v1", "things"), Kind: "Thing", Verbs: all},
		{GVR: gvr("x", "v1", "reviews"), Kind: "Review", Verbs: []string{"create"}},
	}
	got := garbagecollector.Deletable(res, garbagecollector.Options{}.WithDefaults(nil).Ignored)
	var kinds []string
	for _, gvk := range got {
		kinds = append(kinds, gvk.String())
	}
	slices.Sort(kinds)
	want := []string{"/v1, Kind=ConfigMap", "x/v2, Kind=Thing"}
	if !slices.Equal(kinds, want) {
		t.Errorf("watched %v, want %v", kinds, want)
	}
}

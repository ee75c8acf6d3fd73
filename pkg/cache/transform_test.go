package cache_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestFactoryTransforms rewrites the ConfigMaps its informers cache, but
// neither another kind nor the metadata-only informer of the same kind.
func TestFactoryTransforms(t *testing.T) {
	c, err := client.New(apiservertest.Start(t).Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cmKind := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	dropData := func(obj cache.Object) (cache.Object, error) {
		cm := obj.(*corev1.ConfigMap)
		cm.Data = nil
		return cm, nil
	}
	f := cache.NewFactory(func(src cache.Source) (cache.ListerWatcher, error) {
		if src.MetadataOnly {
			return c.MetadataListerWatcher(src.GVK, src.Namespace)
		}
		return c.ListerWatcher(src.GVK, src.Namespace)
	}, cache.FactoryOptions{Transforms: map[schema.GroupVersionKind]func(cache.Object) (cache.Object, error){cmKind: dropData}})
	ctx := runFactory(t, f)
	data := map[string]string{"k": "v"}
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}, Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s"}, StringData: data}); err != nil {
		t.Fatal(err)
	}

	cms, err := cache.InformerFor[*corev1.ConfigMap](f, cache.Source{GVK: cmKind, Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	secrets, err := cache.InformerFor[*corev1.Secret](f, cache.Source{GVK: corev1.SchemeGroupVersion.WithKind("Secret"), Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := cache.InformerFor[*metav1.PartialObjectMetadata](f, cache.Source{GVK: cmKind, Namespace: "default", MetadataOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []cache.Syncer{cms, secrets, meta} {
		if err := cache.WaitForSync(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	cm, ok := cms.Lister().Get("default/cm")
	if !ok || cm.Data != nil {
		t.Errorf("cached ConfigMap: found %v, data %v; want found, no data", ok, cm)
	}
	if s, ok := secrets.Lister().Get("default/s"); !ok || len(s.Data) != 1 {
		t.Errorf("cached Secret (another kind): found %v, data %v; want its data", ok, s)
	}
	if _, ok := meta.Lister().Get("default/cm"); !ok {
		t.Error("the metadata-only informer of the transformed kind lacks the ConfigMap")
	}
}

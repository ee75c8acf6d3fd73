package cache

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"

	"github.com/setpoint-dev/setpoint/pkg/apiserver/apiservertest"
)

// TestServerFactoryShares: two consumers of one Source share one
// informer and one watch; other scopes and a metadata-only view get their
// own; asking for a Source with another type is refused.
func TestServerFactoryShares(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv.Config)
	c.namespace("team")
	c.create(newCM("default", "a", map[string]string{"app": "web"}, "big", "payload"))
	c.create(newCM("team", "b", nil))

	var log requestLog
	cfg := log.wrap(srv.Config)
	dyn := dynamic.NewForConfigOrDie(cfg)
	meta := metadata.NewForConfigOrDie(cfg)
	resources := map[schema.GroupVersionKind]schema.GroupVersionResource{cmGVK: cmGVR}
	newLW := func(src Source) (ListerWatcher, error) {
		gvr := resources[src.GVK]
		if src.MetadataOnly {
			return metaLW{meta.Resource(gvr).Namespace(src.Namespace)}, nil
		}
		ri := dyn.Resource(gvr).Namespace(src.Namespace)
		return dynLW{get: func() dynamic.ResourceInterface { return ri }}, nil
	}
	f := NewFactory(newLW, FactoryOptions{Logger: discardLogger()})

	all := Source{GVK: cmGVK}
	first, err := InformerFor[U](f, all)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := InformerFor[U](f, all)
	if first != second {
		t.Fatal("two informers for one Source")
	}
	web, _ := InformerFor[U](f, Source{GVK: cmGVK, LabelSelector: "app=web"})
	team, _ := InformerFor[U](f, Source{GVK: cmGVK, Namespace: "team"})
	metaInf, err := MetadataInformerFor(f, all)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := InformerFor[*metav1.PartialObjectMetadata](f, all); err == nil {
		t.Error("the same Source as another type: no error")
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if err := f.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	// Asked for while running: starts at once.
	late, _ := InformerFor[U](f, Source{GVK: cmGVK, FieldSelector: "metadata.name=b"})
	syncOrFail(t, late)

	h1, h2 := &ucalls{}, &ucalls{}
	first.AddHandler(h1, HandlerOptions{})
	second.AddHandler(h2, HandlerOptions{})
	c.create(newCM("default", "c", nil))
	eventually(t, "both consumers", func() bool { return h1.len() == 3 && h2.len() == 3 })

	for _, tt := range []struct {
		name string
		got  []string
		want []string
	}{
		{"all", keys(first.Lister().List(nil)), []string{"default/a", "default/c", "team/b"}},
		{"web", keys(web.Lister().List(nil)), []string{"default/a"}},
		{"team", keys(team.Lister().List(nil)), []string{"team/b"}},
		{"late", keys(late.Lister().List(nil)), []string{"team/b"}},
	} {
		eq(t, tt.name, tt.got, tt.want)
	}
	eventually(t, "the metadata view", func() bool { return len(metaInf.Lister().List(nil)) == 3 })
	if m, ok := metaInf.Lister().Namespace("default").Get("a"); !ok || m.Labels["app"] != "web" {
		t.Errorf("metadata object: %+v", m)
	}

	// One watch per Source: all (shared by two consumers), metadata,
	// web, team, late.
	unselected := 0
	for _, r := range log.all() {
		if strings.Contains(r, "/api/v1/configmaps?") && strings.Contains(r, "watch=true") && !strings.Contains(r, "Selector=") {
			unselected++
		}
	}
	if unselected != 2 {
		t.Errorf("%d cluster-wide watches, want 2 (full and metadata): %q", unselected, log.all())
	}
	if n := log.count("watch=true"); n != 5 {
		t.Errorf("%d watches, want 5: %q", n, log.all())
	}
	if n := log.count("labelSelector=app%3Dweb"); n != 1 {
		t.Errorf("%d label-selected requests, want 1", n)
	}
}

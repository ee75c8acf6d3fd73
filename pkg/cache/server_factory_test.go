package cache_test

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestServerFactoryShares: two consumers of one Source share one
// informer and one watch; other scopes, another kind and metadata-only
// views get their own; asking for a Source with another type is refused.
// The factory builds its ListerWatchers from one Setpoint client: typed
// for ConfigMaps, unstructured for a custom resource, metadata-only when
// asked.
func TestServerFactoryShares(t *testing.T) {
	// What a metadata-only request puts in its Accept header.
	const metadataOnly = "as=PartialObjectMetadata"
	srv := apiservertest.Start(t)
	w := newWriter(t, srv.Config)
	w.namespace("team")
	w.create(widgetCRD())
	a, b := newCM("default", "a", map[string]string{"app": "web"}, "big", "payload"), newCM("team", "b", nil)
	w.create(a)
	w.create(b)
	w.create(newWidget("team", "gear", map[string]string{"app": "web"}, map[string]any{"teeth": int64(12)}))

	var log requestLog
	c := newClient(t, log.wrap(srv.Config))
	newLW := func(src cache.Source) (cache.ListerWatcher, error) {
		if src.MetadataOnly {
			return c.MetadataListerWatcher(src.GVK, src.Namespace)
		}
		return c.ListerWatcher(src.GVK, src.Namespace)
	}
	f := cache.NewFactory(newLW, cache.FactoryOptions{Logger: discardLogger()})

	all := cache.Source{GVK: cmGVK}
	first, err := cache.InformerFor[cache.CM](f, all)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := cache.InformerFor[cache.CM](f, all)
	if first != second {
		t.Fatal("two informers for one Source")
	}
	web, _ := cache.InformerFor[cache.CM](f, cache.Source{GVK: cmGVK, LabelSelector: "app=web"})
	team, _ := cache.InformerFor[cache.CM](f, cache.Source{GVK: cmGVK, Namespace: "team"})
	metaInf, err := cache.MetadataInformerFor(f, all)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cache.InformerFor[*metav1.PartialObjectMetadata](f, all); err == nil {
		t.Error("the same Source as another type: no error")
	}
	if _, err := cache.InformerFor[U](f, all); err == nil {
		t.Error("the same Source as unstructured: no error")
	}
	widgets, err := cache.InformerFor[U](f, cache.Source{GVK: widgetGVK})
	if err != nil {
		t.Fatal(err)
	}
	widgetMeta, err := cache.MetadataInformerFor(f, cache.Source{GVK: widgetGVK, Namespace: "team"})
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if err := f.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	// Asked for while running: starts at once.
	late, _ := cache.InformerFor[cache.CM](f, cache.Source{GVK: cmGVK, FieldSelector: "metadata.name=b"})
	syncOrFail(t, late)

	h1, h2 := &calls[cache.CM]{}, &calls[cache.CM]{}
	first.AddHandler(h1, cache.HandlerOptions{})
	second.AddHandler(h2, cache.HandlerOptions{})
	cNew := newCM("default", "c", nil)
	w.create(cNew)
	envtest.EventuallyTrue(t, "both consumers", func() bool { return h1.len() == 3 && h2.len() == 3 })
	for i, h := range []*calls[cache.CM]{h1, h2} {
		eq(t, fmt.Sprintf("consumer %d", i+1), sorted(h.take()), []string{
			"add default/a@" + a.ResourceVersion + " initial",
			"add default/c@" + cNew.ResourceVersion,
			"add team/b@" + b.ResourceVersion + " initial",
		})
	}
	envtest.EventuallyTrue(t, "the metadata view", func() bool { return len(metaInf.Lister().List(nil)) == 3 })

	for _, tt := range []struct {
		name string
		got  []string
		want []string
	}{
		{"all", keys(first.Lister().List(nil)), []string{"default/a", "default/c", "team/b"}},
		{"web", keys(web.Lister().List(nil)), []string{"default/a"}},
		{"team", keys(team.Lister().List(nil)), []string{"team/b"}},
		{"late", keys(late.Lister().List(nil)), []string{"team/b"}},
		{"metadata", keys(metaInf.Lister().List(nil)), []string{"default/a", "default/c", "team/b"}},
		{"widgets", keys(widgets.Lister().List(nil)), []string{"team/gear"}},
		{"widget metadata", keys(widgetMeta.Lister().List(nil)), []string{"team/gear"}},
	} {
		eq(t, tt.name, tt.got, tt.want)
	}
	if m, ok := metaInf.Lister().Namespace("default").Get("a"); !ok || m.Labels["app"] != "web" || m.Kind != "ConfigMap" {
		t.Errorf("metadata object: %+v", m)
	}
	if g, ok := widgets.Lister().Namespace("team").Get("gear"); !ok || g.Object["spec"].(map[string]any)["teeth"] != int64(12) {
		t.Errorf("widget: %v", g)
	}
	if m, ok := widgetMeta.Lister().Namespace("team").Get("gear"); !ok || m.Labels["app"] != "web" || m.Kind != "Widget" {
		t.Errorf("widget metadata: %+v", m)
	}

	// One watch per Source: the full ConfigMap one shared by two
	// consumers, and one each for metadata, web, team, late and the two
	// Widget views.
	for _, tt := range []struct {
		parts []string
		want  int
	}{
		{[]string{"watch=true"}, 7},
		{[]string{"/api/v1/configmaps?", "watch=true"}, 4},
		{[]string{"/api/v1/namespaces/team/configmaps?", "watch=true"}, 1},
		{[]string{"/api/v1/configmaps?", "labelSelector=app%3Dweb"}, 1},
		{[]string{"/api/v1/configmaps?", "fieldSelector=metadata.name%3Db"}, 1},
		{[]string{"/apis/example.com/v1/widgets?", "watch=true"}, 1},
		{[]string{"/apis/example.com/v1/namespaces/team/widgets?", "watch=true", metadataOnly}, 1},
		{[]string{"watch=true", metadataOnly}, 2},
		// The two unselected cluster-wide ConfigMap watches: the full
		// objects and metadata only.
		{[]string{"/api/v1/configmaps?", "watch=true", "!Selector=", "!" + metadataOnly}, 1},
		{[]string{"/api/v1/configmaps?", "watch=true", "!Selector=", metadataOnly}, 1},
	} {
		if got := log.count(tt.parts...); got != tt.want {
			t.Errorf("%d requests with %q, want %d; requests:\n%q", got, tt.parts, tt.want, log.all())
		}
	}
}

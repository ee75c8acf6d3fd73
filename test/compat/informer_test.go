package compat_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// informerEvent is one call of an informer's event handler.
type informerEvent struct {
	typ      string // add, update, delete
	old, obj *corev1.ConfigMap
}

func (e informerEvent) String() string {
	s := e.typ + " " + e.obj.Name + " data=" + fmt.Sprint(e.obj.Data) + " rv=" + e.obj.ResourceVersion
	if e.old != nil {
		s += " (old data=" + fmt.Sprint(e.old.Data) + " rv=" + e.old.ResourceVersion + ")"
	}
	return s
}

// eventHandler sends every Add, Update and Delete to a channel, in the
// order the informer delivers them.
func eventHandler(ch chan<- informerEvent) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { ch <- informerEvent{typ: "add", obj: obj.(*corev1.ConfigMap)} },
		UpdateFunc: func(old, obj any) {
			ch <- informerEvent{typ: "update", old: old.(*corev1.ConfigMap), obj: obj.(*corev1.ConfigMap)}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			ch <- informerEvent{typ: "delete", obj: obj.(*corev1.ConfigMap)}
		},
	}
}

// expectEvent takes the next handler call and checks its type, object
// name and data.
func expectEvent(t *testing.T, ch <-chan informerEvent, wantType, wantName string, wantData map[string]string) informerEvent {
	t.Helper()
	got := receive(t, ch, fmt.Sprintf("informer %s of %s", wantType, wantName))
	if got.typ != wantType || got.obj.Name != wantName || fmt.Sprint(got.obj.Data) != fmt.Sprint(wantData) {
		t.Fatalf("informer event: got %v, want %s %s data=%v", got, wantType, wantName, wantData)
	}
	return got
}

// expectNoEvent checks that no handler call is waiting.
func expectNoEvent(t *testing.T, ch <-chan informerEvent) {
	t.Helper()
	select {
	case ev := <-ch:
		t.Fatalf("unexpected informer event: %v", ev)
	default:
	}
}

// configMapRequests keeps the requests on configmaps in namespace ns.
func configMapRequests(ns string) func(recordedRequest) bool {
	return func(r recordedRequest) bool {
		return r.Method == "GET" && r.URL.Path == "/api/v1/namespaces/"+ns+"/configmaps"
	}
}

func isPlainList(r recordedRequest) bool { return !r.isWatch() }

func isWatchList(r recordedRequest) bool {
	return r.isWatch() && r.URL.Query().Get("sendInitialEvents") == "true"
}

func countWhere(reqs []recordedRequest, keep func(recordedRequest) bool) int {
	n := 0
	for _, r := range reqs {
		if keep(r) {
			n++
		}
	}
	return n
}

// TestInformerConfigMaps runs a SharedInformerFactory's ConfigMap
// informer through create, update and delete, with the WatchList client
// feature on and off, over JSON and protobuf, and proves from the
// requests on the wire which way the informer got its initial state.
func TestInformerConfigMaps(t *testing.T) {
	tests := []struct {
		name        string
		watchList   bool
		contentType string
	}{
		{name: "WatchList/json", watchList: true, contentType: "application/json"},
		{name: "List/json", watchList: false, contentType: "application/json"},
		{name: "WatchList/protobuf", watchList: true, contentType: protobufContentType},
		{name: "List/protobuf", watchList: false, contentType: protobufContentType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The reflector reads the gate when it is built, so the
			// informer below sees this value.
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, tc.watchList)
			srv := apiservertest.Start(t)
			rec := newRecorder(t)
			cfg := rec.wrap(srv.Config)
			cfg.ContentType = tc.contentType
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			ns := createNamespace(t, cs, "informer")
			cms := cs.CoreV1().ConfigMaps(ns)
			before := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}, Data: map[string]string{"k": "0"}}
			if _, err := cms.Create(ctx, before, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}

			factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
			inf := factory.Core().V1().ConfigMaps()
			events := make(chan informerEvent, 100)
			if _, err := inf.Informer().AddEventHandler(eventHandler(events)); err != nil {
				t.Fatal(err)
			}
			lister := inf.Lister().ConfigMaps(ns)
			factory.Start(ctx.Done())
			t.Cleanup(factory.Shutdown)
			for typ, ok := range factory.WaitForCacheSync(ctxWithTimeout(t).Done()) {
				if !ok {
					t.Fatalf("informer for %v did not sync", typ)
				}
			}
			expectEvent(t, events, "add", "before", map[string]string{"k": "0"})

			// The initial state came the way the feature says.
			reqs := rec.requests(configMapRequests(ns))
			gotLists, gotWatchLists := countWhere(reqs, isPlainList), countWhere(reqs, isWatchList)
			if tc.watchList {
				if gotWatchLists == 0 || gotLists != 0 {
					t.Fatalf("WatchList on: got %d requests with sendInitialEvents=true and %d plain LISTs, want at least 1 and 0", gotWatchLists, gotLists)
				}
			} else if gotLists == 0 || gotWatchLists != 0 {
				t.Fatalf("WatchList off: got %d plain LISTs and %d requests with sendInitialEvents=true, want at least 1 and 0", gotLists, gotWatchLists)
			}
			// And in the format asked for.
			for _, r := range reqs {
				if !strings.HasPrefix(r.RespType, tc.contentType) {
					t.Errorf("%s %s: got response Content-Type %q, want %s", r.Method, r.URL, r.RespType, tc.contentType)
				}
			}

			// Create, update, delete: the handler sees each, in order.
			a := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}, Data: map[string]string{"k": "1"}}
			created, err := cms.Create(ctx, a, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := expectEvent(t, events, "add", "a", map[string]string{"k": "1"})
			if got.obj.ResourceVersion != created.ResourceVersion || got.obj.UID != created.UID {
				t.Errorf("add: got rv %s uid %s, want rv %s uid %s", got.obj.ResourceVersion, got.obj.UID, created.ResourceVersion, created.UID)
			}

			created.Data = map[string]string{"k": "2"}
			updated, err := cms.Update(ctx, created, metav1.UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got = expectEvent(t, events, "update", "a", map[string]string{"k": "2"})
			if got.old.ResourceVersion != created.ResourceVersion || got.obj.ResourceVersion != updated.ResourceVersion {
				t.Errorf("update: got old rv %s new rv %s, want %s and %s", got.old.ResourceVersion, got.obj.ResourceVersion, created.ResourceVersion, updated.ResourceVersion)
			}
			if fmt.Sprint(got.old.Data) != fmt.Sprint(map[string]string{"k": "1"}) {
				t.Errorf("update: got old data %v, want k=1", got.old.Data)
			}

			// The lister is up to date once the handler has been called.
			cm, err := lister.Get("a")
			if err != nil {
				t.Fatalf("lister get a: %v", err)
			}
			if cm.Data["k"] != "2" || cm.ResourceVersion != updated.ResourceVersion {
				t.Errorf("lister get a: got data %v rv %s, want k=2 rv %s", cm.Data, cm.ResourceVersion, updated.ResourceVersion)
			}
			sel := labels.SelectorFromSet(labels.Set{"app": "x"})
			if list, err := lister.List(sel); err != nil || len(list) != 1 || list[0].Name != "a" {
				t.Errorf("lister list app=x: got %d items (err %v), want [a]", len(list), err)
			}

			if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			expectEvent(t, events, "delete", "a", map[string]string{"k": "2"})
			if _, err := lister.Get("a"); !apierrors.IsNotFound(err) {
				t.Errorf("lister get a after delete: got err %v, want NotFound", err)
			}
			all, err := lister.List(labels.Everything())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, cm := range all {
				names = append(names, cm.Name)
			}
			if fmt.Sprint(names) != "[before]" {
				t.Errorf("lister list: got %v, want [before]", names)
			}
			expectNoEvent(t, events)
		})
	}
}

// TestInformerSurvivesWatchEnd makes the server end every watch after a
// second (timeoutSeconds=1) and checks that the informer watches again
// from where it was, without listing again, and keeps delivering events.
func TestInformerSurvivesWatchEnd(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchList=%v", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			srv := apiservertest.Start(t)
			rec := newRecorder(t)
			cs, err := kubernetes.NewForConfig(rec.wrap(srv.Config))
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			ns := createNamespace(t, cs, "rewatch")
			cms := cs.CoreV1().ConfigMaps(ns)

			// Only the reflector's watches carry a timeout; shorten it.
			short := func(o *metav1.ListOptions) {
				if o.TimeoutSeconds != nil {
					one := int64(1)
					o.TimeoutSeconds = &one
				}
			}
			factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns), informers.WithTweakListOptions(short))
			inf := factory.Core().V1().ConfigMaps()
			events := make(chan informerEvent, 100)
			if _, err := inf.Informer().AddEventHandler(eventHandler(events)); err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx.Done())
			t.Cleanup(factory.Shutdown)
			for typ, ok := range factory.WaitForCacheSync(ctxWithTimeout(t).Done()) {
				if !ok {
					t.Fatalf("informer for %v did not sync", typ)
				}
			}

			isWatch := func(r recordedRequest) bool { return configMapRequests(ns)(r) && r.isWatch() }
			for i := range 3 {
				name := fmt.Sprintf("cm-%d", i)
				// Wait until the server has ended one more watch and the
				// informer has started the next.
				n := len(rec.requests(isWatch))
				waitFor(t, "the informer to watch again after the server ended its watch", func() (bool, error) {
					return len(rec.requests(isWatch)) >= n+1, nil
				})
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"i": fmt.Sprint(i)}}
				if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				expectEvent(t, events, "add", name, map[string]string{"i": fmt.Sprint(i)})
			}

			reqs := rec.requests(configMapRequests(ns))
			initial := isPlainList
			if watchList {
				initial = isWatchList
			}
			if got := countWhere(reqs, initial); got != 1 {
				t.Errorf("got %d initial-state requests (LIST or sendInitialEvents=true), want 1: every later watch should resume from its resourceVersion", got)
			}
			rewatches := 0
			for _, r := range reqs {
				if !r.isWatch() || isWatchList(r) {
					continue
				}
				rewatches++
				if rv := r.URL.Query().Get("resourceVersion"); rv == "" || rv == "0" {
					t.Errorf("re-watch %s: want a resourceVersion to resume from", r.URL)
				}
				if r.Status != 200 {
					t.Errorf("re-watch %s: got status %d, want 200", r.URL, r.Status)
				}
			}
			if rewatches < 2 {
				t.Errorf("got %d re-watches, want at least 2", rewatches)
			}
			expectNoEvent(t, events)
		})
	}
}

// TestInformerRelistsAfterExpiredWatch makes the informer's resume point
// fall out of the server's small event log (writes in another namespace
// move the log on; the informer's namespace sees none of them), so its
// next watch is answered with 410 Expired, and checks the informer lists
// again and keeps delivering events.
func TestInformerRelistsAfterExpiredWatch(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchList=%v", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(c *apiserver.Config) {
				c.CacheLimits = watchcache.Limits{MaxEvents: 4, MaxBytes: 16 << 20, WatchBuffer: 256}
			}})
			rec := newRecorder(t)
			cs, err := kubernetes.NewForConfig(rec.wrap(srv.Config))
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			ns := createNamespace(t, cs, "watched")
			other := createNamespace(t, cs, "busy")
			cms := cs.CoreV1().ConfigMaps(ns)
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "seed"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}

			short := func(o *metav1.ListOptions) {
				if o.TimeoutSeconds != nil {
					one := int64(1)
					o.TimeoutSeconds = &one
				}
			}
			factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns), informers.WithTweakListOptions(short))
			inf := factory.Core().V1().ConfigMaps()
			all := make(chan informerEvent, 100)
			if _, err := inf.Informer().AddEventHandler(eventHandler(all)); err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx.Done())
			t.Cleanup(factory.Shutdown)
			for typ, ok := range factory.WaitForCacheSync(ctxWithTimeout(t).Done()) {
				if !ok {
					t.Fatalf("informer for %v did not sync", typ)
				}
			}
			// A relist hands unchanged objects to the handler as updates
			// with the same resourceVersion; skip those.
			events := make(chan informerEvent, 100)
			go func() {
				for {
					select {
					case ev := <-all:
						if ev.typ == "update" && ev.old.ResourceVersion == ev.obj.ResourceVersion {
							continue
						}
						events <- ev
					case <-ctx.Done():
						return
					}
				}
			}()
			expectEvent(t, events, "add", "seed", nil)

			initial := isPlainList
			if watchList {
				initial = isWatchList
			}
			initialRequests := func() int { return countWhere(rec.requests(configMapRequests(ns)), initial) }
			if got := initialRequests(); got != 1 {
				t.Fatalf("got %d initial-state requests before the log moved on, want 1", got)
			}
			for i := range 10 {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("busy-%d", i)}}
				if _, err := cs.CoreV1().ConfigMaps(other).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, "the informer to get its initial state again after its watch expired", func() (bool, error) {
				return initialRequests() >= 2, nil
			})

			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			expectEvent(t, events, "add", "after", map[string]string{"k": "v"})
			list, err := inf.Lister().ConfigMaps(ns).List(labels.Everything())
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 2 {
				t.Errorf("lister after relist: got %d ConfigMaps, want 2 (seed, after)", len(list))
			}
		})
	}
}

// TestWatchExpiredResourceVersion checks that a watch from a revision the
// server's event log no longer holds gets a 410 Expired ERROR event, which
// client-go recognizes.
func TestWatchExpiredResourceVersion(t *testing.T) {
	for _, contentType := range []string{"application/json", protobufContentType} {
		t.Run(contentType, func(t *testing.T) {
			srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(c *apiserver.Config) {
				c.CacheLimits = watchcache.Limits{MaxEvents: 4, MaxBytes: 16 << 20, WatchBuffer: 256}
			}})
			rec := newRecorder(t)
			cfg := rec.wrap(srv.Config)
			cfg.ContentType = contentType
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			ns := createNamespace(t, cs, "expired")
			first, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-first"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 10 {
				if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			// A consistent list waits until the server's cache has applied
			// every create, so its event log has moved past the first.
			if _, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil {
				t.Fatal(err)
			}
			w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion})
			if err != nil {
				// kube-apiserver answers 200 and an ERROR event; a 410
				// status is also something client-go understands.
				if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
					t.Fatalf("watch from expired resourceVersion %s: got err %v, want 410 Expired", first.ResourceVersion, err)
				}
				return
			}
			defer w.Stop()
			ev := receive(t, w.ResultChan(), "the ERROR event of an expired watch")
			if ev.Type != watch.Error {
				t.Fatalf("watch from expired resourceVersion %s: got %s event %v, want ERROR", first.ResourceVersion, ev.Type, ev.Object)
			}
			err = apierrors.FromObject(ev.Object)
			if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
				t.Errorf("watch from expired resourceVersion: got error %v (%T), want 410 Expired", err, ev.Object)
			}
		})
	}
}

// objEvent is one handler call of an informer on unstructured or
// metadata-only objects.
type objEvent struct {
	typ    string
	name   string
	rv     string
	labels map[string]string
	obj    any
}

func (e objEvent) String() string {
	return fmt.Sprintf("%s %s rv=%s labels=%v", e.typ, e.name, e.rv, e.labels)
}

func objEventHandler(ch chan<- objEvent) cache.ResourceEventHandlerFuncs {
	send := func(typ string, obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			ch <- objEvent{typ: typ + " (not an object)", obj: obj}
			return
		}
		ch <- objEvent{typ: typ, name: m.GetName(), rv: m.GetResourceVersion(), labels: m.GetLabels(), obj: obj}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { send("add", obj) },
		UpdateFunc: func(_, obj any) { send("update", obj) },
		DeleteFunc: func(obj any) { send("delete", obj) },
	}
}

func expectObjEvent(t *testing.T, ch <-chan objEvent, wantType, wantName, wantRV string) objEvent {
	t.Helper()
	got := receive(t, ch, fmt.Sprintf("informer %s of %s", wantType, wantName))
	if got.typ != wantType || got.name != wantName || (wantRV != "" && got.rv != wantRV) {
		t.Fatalf("informer event: got %v, want %s %s rv=%s", got, wantType, wantName, wantRV)
	}
	return got
}

// TestMetadataInformer runs client-go's metadata-only informer (what
// controller-runtime's OnlyMetadata uses) on ConfigMaps.
func TestMetadataInformer(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchList=%v", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			srv := apiservertest.Start(t)
			rec := newRecorder(t)
			cfg := rec.wrap(srv.Config)
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			mc, err := metadata.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			ns := createNamespace(t, cs, "meta")
			cms := cs.CoreV1().ConfigMaps(ns)
			if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}, Data: map[string]string{"big": "data"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			factory := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, ns, nil)
			gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
			inf := factory.ForResource(gvr)
			events := make(chan objEvent, 100)
			if _, err := inf.Informer().AddEventHandler(objEventHandler(events)); err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx.Done())
			t.Cleanup(factory.Shutdown)
			for typ, ok := range factory.WaitForCacheSync(ctxWithTimeout(t).Done()) {
				if !ok {
					t.Fatalf("informer for %v did not sync", typ)
				}
			}
			got := expectObjEvent(t, events, "add", "before", "")
			pom, ok := got.obj.(*metav1.PartialObjectMetadata)
			if !ok {
				t.Fatalf("metadata informer: got %T, want *metav1.PartialObjectMetadata", got.obj)
			}
			if pom.Namespace != ns || pom.UID == "" {
				t.Errorf("metadata informer: got namespace %q uid %q, want %q and a uid", pom.Namespace, pom.UID, ns)
			}

			created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"v": "1"}}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			expectObjEvent(t, events, "add", "a", created.ResourceVersion)
			created.Labels["v"] = "2"
			updated, err := cms.Update(ctx, created, metav1.UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := expectObjEvent(t, events, "update", "a", updated.ResourceVersion); got.labels["v"] != "2" {
				t.Errorf("metadata informer update: got labels %v, want v=2", got.labels)
			}
			if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			expectObjEvent(t, events, "delete", "a", "")
			if items := inf.Informer().GetStore().ListKeys(); fmt.Sprint(items) != "["+ns+"/before]" {
				t.Errorf("metadata informer store: got %v, want [%s/before]", items, ns)
			}

			// The informer asked for metadata only; the metadata client
			// refuses anything but PartialObjectMetadata(List), so the
			// events above prove the server answered with it.
			if n := len(rec.requests(func(r recordedRequest) bool {
				return configMapRequests(ns)(r) && strings.Contains(r.Accept, "PartialObjectMetadata")
			})); n == 0 {
				t.Errorf("no metadata-only requests on configmaps recorded")
			}
		})
	}
}

// TestInformerFieldSelector runs an informer restricted by a field
// selector on metadata.name, as client-go's single-object watches do.
func TestInformerFieldSelector(t *testing.T) {
	srv := apiservertest.Start(t)
	cs, err := kubernetes.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ns := createNamespace(t, cs, "fields")
	cms := cs.CoreV1().ConfigMaps(ns)
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=picked" }))
	inf := factory.Core().V1().ConfigMaps()
	events := make(chan informerEvent, 100)
	if _, err := inf.Informer().AddEventHandler(eventHandler(events)); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	for typ, ok := range factory.WaitForCacheSync(ctxWithTimeout(t).Done()) {
		if !ok {
			t.Fatalf("informer for %v did not sync", typ)
		}
	}
	for _, name := range []string{"other", "picked"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"n": name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	expectEvent(t, events, "add", "picked", map[string]string{"n": "picked"})
	if err := cms.Delete(ctx, "other", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "picked", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, events, "delete", "picked", map[string]string{"n": "picked"})
	expectNoEvent(t, events)
}

package client_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// next returns the next event, failing the test after a while.
func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed early")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
	}
	return watch.Event{}
}

// describe renders an event as TYPE name[=value] for comparison.
func describe(ev watch.Event) string {
	switch o := ev.Object.(type) {
	case *corev1.ConfigMap:
		return fmt.Sprintf("%s %s=%s", ev.Type, o.Name, o.Data["v"])
	case *unstructured.Unstructured:
		v, _, _ := unstructured.NestedString(o.Object, "spec", "v")
		return fmt.Sprintf("%s %s=%s", ev.Type, o.GetName(), v)
	case *metav1.PartialObjectMetadata:
		return fmt.Sprintf("%s %s %s", ev.Type, o.Kind, o.Name)
	case *metav1.Status:
		return fmt.Sprintf("%s %d %s", ev.Type, o.Code, o.Reason)
	}
	return fmt.Sprintf("%s %T", ev.Type, ev.Object)
}

func TestWatch(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(c *apiserver.Config) {
				c.BookmarkInterval = 50 * time.Millisecond
			}})
			c, rec := newClient(t, srv, mode.opts)
			ctx := ctx(t)
			createNamespace(t, c, "demo")
			var list corev1.ConfigMapList
			if err := c.List(ctx, &list, client.InNamespace("demo")); err != nil {
				t.Fatal(err)
			}
			w, err := c.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace("demo"),
				client.ResourceVersion(list.ResourceVersion), client.AllowWatchBookmarks(true))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()

			cm := configMap("demo", "cm", map[string]string{"v": "1"})
			if err := c.Create(ctx, cm); err != nil {
				t.Fatal(err)
			}
			cm.Data["v"] = "2"
			if err := c.Update(ctx, cm); err != nil {
				t.Fatal(err)
			}
			if err := c.Delete(ctx, cm); err != nil {
				t.Fatal(err)
			}
			want := []string{"ADDED cm=1", "MODIFIED cm=2", "DELETED cm=2", "BOOKMARK"}
			var got []string
			var bookmarkRV string
			for len(got) < len(want) {
				ev := next(t, w)
				if ev.Type == watch.Bookmark {
					if len(got) < 3 {
						continue // a bookmark may come before the changes
					}
					bookmarkRV = ev.Object.(*corev1.ConfigMap).ResourceVersion
					got = append(got, "BOOKMARK")
					continue
				}
				got = append(got, describe(ev))
			}
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("events: got %v, want %v", got, want)
			}
			if bookmarkRV == "" {
				t.Errorf("bookmark without a resourceVersion")
			}
			w.Stop()
			for range w.ResultChan() {
			}
			watches := 0
			for _, ex := range rec.exchanges() {
				if !strings.HasSuffix(ex.path, "/configmaps") || !strings.Contains(ex.query, "watch=true") {
					continue
				}
				watches++
				if got := mediaOnly(ex.responseType); got != mode.wantType {
					t.Errorf("watch answered as %q, want %q", ex.responseType, mode.wantType)
				}
			}
			if watches != 1 {
				t.Errorf("saw %d watch requests, want 1", watches)
			}
		})
	}
}

// TestWatchExpired watches from a resourceVersion the server's event log
// no longer holds: the stream carries one 410 ERROR event.
func TestWatchExpired(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(c *apiserver.Config) {
				c.CacheLimits = watchcache.Limits{MaxEvents: 2, MaxBytes: 1 << 20, WatchBuffer: 16}
			}})
			c, _ := newClient(t, srv, mode.opts)
			ctx := ctx(t)
			createNamespace(t, c, "demo")
			cm := configMap("demo", "cm", map[string]string{"v": "0"})
			if err := c.Create(ctx, cm); err != nil {
				t.Fatal(err)
			}
			first := cm.ResourceVersion
			for i := range 5 {
				cm.Data["v"] = fmt.Sprint(i + 1)
				if err := c.Update(ctx, cm); err != nil {
					t.Fatal(err)
				}
			}
			// A consistent list waits until the server's watch cache has
			// every update, so its two-event window has moved past first;
			// a watch sent before that could still be replayed from it.
			if err := c.List(ctx, &corev1.ConfigMapList{}, client.InNamespace("demo")); err != nil {
				t.Fatal(err)
			}
			w, err := c.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace("demo"), client.ResourceVersion(first))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			ev := next(t, w)
			if got, want := describe(ev), "ERROR 410 Expired"; got != want {
				t.Fatalf("event: got %q, want %q", got, want)
			}
			err = client.EventError(ev)
			if !client.IsGone(err) || !client.IsResourceExpired(err) {
				t.Errorf("EventError: got %v, want Gone and Expired", err)
			}
			if _, ok := <-w.ResultChan(); ok {
				t.Errorf("the stream went on after the ERROR event")
			}
		})
	}
}

// TestWatchList streams the initial state through a ListerWatcher, as
// current client-go informers do.
func TestWatchList(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			c, _ := start(t, mode.opts)
			ctx := ctx(t)
			createNamespace(t, c, "demo")
			createNamespace(t, c, "other")
			if err := c.Create(ctx, widgetCRD()); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"a", "b", "c"} {
				if err := c.Create(ctx, configMap("demo", name, map[string]string{"v": name})); err != nil {
					t.Fatal(err)
				}
				if err := c.Create(ctx, widget("demo", name, map[string]any{"v": name})); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Create(ctx, configMap("other", "x", nil)); err != nil {
				t.Fatal(err)
			}
			tests := []struct {
				name     string
				lw       func() (client.ListerWatcher, error)
				wantList string
				want     []string
			}{
				{"typed", func() (client.ListerWatcher, error) {
					return c.ListerWatcher(corev1.SchemeGroupVersion.WithKind("ConfigMap"), "demo")
				}, "*v1.ConfigMapList", []string{"ADDED a=a", "ADDED b=b", "ADDED c=c"}},
				{"unstructured", func() (client.ListerWatcher, error) { return c.ListerWatcher(widgetGVK, "demo") },
					"*unstructured.UnstructuredList", []string{"ADDED a=a", "ADDED b=b", "ADDED c=c"}},
				{"selector fixed at construction", func() (client.ListerWatcher, error) {
					return c.ListerWatcher(corev1.SchemeGroupVersion.WithKind("ConfigMap"), "demo", client.MatchingFields{"metadata.name": "b"})
				}, "*v1.ConfigMapList", []string{"ADDED b=b"}},
				{"metadata only", func() (client.ListerWatcher, error) {
					return c.MetadataListerWatcher(corev1.SchemeGroupVersion.WithKind("ConfigMap"), "demo")
				}, "*v1.PartialObjectMetadataList", []string{"ADDED ConfigMap a", "ADDED ConfigMap b", "ADDED ConfigMap c"}},
				{"metadata only, custom resource", func() (client.ListerWatcher, error) { return c.MetadataListerWatcher(widgetGVK, "demo") },
					"*v1.PartialObjectMetadataList", []string{"ADDED Widget a", "ADDED Widget b", "ADDED Widget c"}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					lw, err := tt.lw()
					if err != nil {
						t.Fatal(err)
					}
					list, err := lw.List(ctx, metav1.ListOptions{})
					if err != nil {
						t.Fatalf("List: %v", err)
					}
					if got := fmt.Sprintf("%T", list); got != tt.wantList {
						t.Errorf("List returned %s, want %s", got, tt.wantList)
					}
					yes := true
					w, err := lw.Watch(ctx, metav1.ListOptions{
						SendInitialEvents:    &yes,
						ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
						AllowWatchBookmarks:  true,
					})
					if err != nil {
						t.Fatalf("Watch: %v", err)
					}
					defer w.Stop()
					var got []string
					for range tt.want {
						got = append(got, describe(next(t, w)))
					}
					if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
						t.Errorf("initial events: got %v, want %v", got, tt.want)
					}
					ev := next(t, w)
					obj, ok := ev.Object.(metav1.Object)
					if ev.Type != watch.Bookmark || !ok || obj.GetAnnotations()["k8s.io/initial-events-end"] != "true" || obj.GetResourceVersion() == "" {
						t.Errorf("after the initial events: got %s %+v, want a BOOKMARK annotated k8s.io/initial-events-end", ev.Type, ev.Object)
					}
				})
			}
		})
	}
}

func TestMetadataOnly(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			c, rec := newClient(t, apiservertest.Start(t), mode.opts)
			ctx := ctx(t)
			createNamespace(t, c, "demo")
			cm := configMap("demo", "cm", map[string]string{"big": strings.Repeat("x", 1000)})
			cm.Labels = map[string]string{"app": "a"}
			if err := c.Create(ctx, cm); err != nil {
				t.Fatal(err)
			}
			cmKind := corev1.SchemeGroupVersion.WithKind("ConfigMap")

			list := &metav1.PartialObjectMetadataList{}
			list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
			if err := c.List(ctx, list, client.InNamespace("demo")); err != nil {
				t.Fatalf("List: %v", err)
			}
			if len(list.Items) != 1 || list.Items[0].Name != "cm" || list.Items[0].GroupVersionKind() != cmKind ||
				list.Items[0].Labels["app"] != "a" || list.Kind != "ConfigMapList" {
				t.Errorf("List: got %+v", list)
			}

			p := &metav1.PartialObjectMetadata{}
			p.SetGroupVersionKind(cmKind)
			p.Annotations = map[string]string{"stale": "x"}
			if err := c.Get(ctx, nameOf(cm), p); err != nil {
				t.Fatalf("Get: %v", err)
			}
			if p.UID != cm.UID || p.Annotations != nil || p.GroupVersionKind() != cmKind {
				t.Errorf("Get: got %+v", p)
			}

			if err := c.Patch(ctx, p, "application/merge-patch+json", []byte(`{"metadata":{"labels":{"app":"b"}}}`)); err != nil {
				t.Fatalf("Patch: %v", err)
			}
			if p.Labels["app"] != "b" {
				t.Errorf("Patch: labels %v", p.Labels)
			}

			w, err := c.Watch(ctx, list, client.InNamespace("demo"))
			if err != nil {
				t.Fatalf("Watch: %v", err)
			}
			defer w.Stop()
			if got, want := describe(next(t, w)), "ADDED ConfigMap cm"; got != want {
				t.Errorf("Watch: got %q, want %q", got, want)
			}
			if err := c.Delete(ctx, p); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if got, want := describe(next(t, w)), "DELETED ConfigMap cm"; got != want {
				t.Errorf("Watch: got %q, want %q", got, want)
			}
			// Metadata is asked for in protobuf when protobuf is on.
			for _, ex := range rec.exchanges() {
				if !strings.Contains(ex.path, "/configmaps") || ex.method == "DELETE" || ex.method == "POST" {
					continue
				}
				if !strings.Contains(ex.accept, "as=PartialObjectMetadata") {
					t.Errorf("%s %s asked for %q", ex.method, ex.path, ex.accept)
				}
				if got := mediaOnly(ex.responseType); got != mode.wantType {
					t.Errorf("%s %s?%s answered as %q, want %q", ex.method, ex.path, ex.query, got, mode.wantType)
				}
			}
		})
	}
}

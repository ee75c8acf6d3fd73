package compat_test

import (
	"fmt"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/kubernetes"
)

var (
	widgets = crdSpec{kind: "Widget", plural: "widgets", singular: "widget", namespaced: true, shortNames: []string{"wd"}}
	gadgets = crdSpec{kind: "Gadget", plural: "gadgets", singular: "gadget", namespaced: false}
)

// dynamicEnv is a server with a dynamic and a typed client that record
// their requests.
type dynamicEnv struct {
	dc  dynamic.Interface
	cs  kubernetes.Interface
	rec *recorder
}

func startDynamic(t *testing.T) *dynamicEnv {
	t.Helper()
	srv := startServer(t) // CRD deletion needs the built-in controllers
	rec := newRecorder(t)
	cfg := rec.wrap(srv.Config)
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &dynamicEnv{dc: dc, cs: cs, rec: rec}
}

// newObject builds a custom object of spec s.
func newObject(s crdSpec, ns, name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(s.gvk())
	u.SetName(name)
	u.SetNamespace(ns)
	u.SetLabels(labels)
	return u
}

func nestedString(t *testing.T, u *unstructured.Unstructured, fields ...string) string {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(u.Object, fields...)
	if err != nil {
		t.Fatalf("%s: .%v: %v", u.GetName(), fields, err)
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func names(items []unstructured.Unstructured) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.GetName())
	}
	slices.Sort(out)
	return out
}

// TestCRDEstablished checks that a created CRD reports its names
// accepted and itself established, for both scopes.
func TestCRDEstablished(t *testing.T) {
	env := startDynamic(t)
	for _, s := range []crdSpec{widgets, gadgets} {
		t.Run(s.kind, func(t *testing.T) {
			createCRD(t, env.dc, s)
			var got *unstructured.Unstructured
			waitFor(t, "CRD "+s.name()+" to be Established", func() (bool, error) {
				var err error
				got, err = env.dc.Resource(crdGVR).Get(t.Context(), s.name(), metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
				status := map[string]string{}
				for _, c := range conds {
					cm, _ := c.(map[string]any)
					status[fmt.Sprint(cm["type"])] = fmt.Sprint(cm["status"])
				}
				return status["NamesAccepted"] == "True" && status["Established"] == "True",
					fmt.Errorf("conditions %v", conds)
			})
			if kind := nestedString(t, got, "status", "acceptedNames", "kind"); kind != s.kind {
				t.Errorf("status.acceptedNames.kind: got %q, want %q", kind, s.kind)
			}
			if plural := nestedString(t, got, "status", "acceptedNames", "plural"); plural != s.plural {
				t.Errorf("status.acceptedNames.plural: got %q, want %q", plural, s.plural)
			}
			stored, _, _ := unstructured.NestedStringSlice(got.Object, "status", "storedVersions")
			if fmt.Sprint(stored) != "[v1]" {
				t.Errorf("status.storedVersions: got %v, want [v1]", stored)
			}
			// The resource is served at once: an empty list, not a 404.
			var err error
			if s.namespaced {
				_, err = env.dc.Resource(s.gvr()).Namespace("default").List(t.Context(), metav1.ListOptions{})
			} else {
				_, err = env.dc.Resource(s.gvr()).List(t.Context(), metav1.ListOptions{})
			}
			if err != nil {
				t.Errorf("list %s right after creating the CRD: %v", s.plural, err)
			}
		})
	}
}

// TestDynamicClientNamespaced drives the dynamic client through every
// verb on a namespaced custom resource.
func TestDynamicClientNamespaced(t *testing.T) {
	env := startDynamic(t)
	ctx := t.Context()
	createCRD(t, env.dc, widgets)
	ns := createNamespace(t, env.cs, "dyn")
	w := env.dc.Resource(widgets.gvr()).Namespace(ns)

	// Create.
	created := map[string]*unstructured.Unstructured{}
	for _, o := range []struct {
		name, color string
		size        int64
	}{{"w1", "red", 1}, {"w2", "blue", 2}, {"w3", "red", 3}} {
		got, err := w.Create(ctx, newObject(widgets, ns, o.name, map[string]string{"color": o.color}, map[string]any{"size": o.size}), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", o.name, err)
		}
		if got.GetUID() == "" || got.GetResourceVersion() == "" || got.GetCreationTimestamp().Time.IsZero() {
			t.Errorf("create %s: got uid %q rv %q creationTimestamp %v, want all set", o.name, got.GetUID(), got.GetResourceVersion(), got.GetCreationTimestamp())
		}
		if got.GetGeneration() != 1 {
			t.Errorf("create %s: got generation %d, want 1", o.name, got.GetGeneration())
		}
		if got.GroupVersionKind() != widgets.gvk() || got.GetNamespace() != ns {
			t.Errorf("create %s: got %v in %q, want %v in %q", o.name, got.GroupVersionKind(), got.GetNamespace(), widgets.gvk(), ns)
		}
		created[o.name] = got
	}
	if _, err := w.Create(ctx, newObject(widgets, ns, "w1", nil, nil), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("create w1 again: got err %v, want AlreadyExists", err)
	}

	// Get.
	got, err := w.Get(ctx, "w1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetResourceVersion() != created["w1"].GetResourceVersion() || nestedString(t, got, "spec", "size") != "1" {
		t.Errorf("get w1: got rv %s size %s, want rv %s size 1", got.GetResourceVersion(), nestedString(t, got, "spec", "size"), created["w1"].GetResourceVersion())
	}
	if _, err := w.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get missing: got err %v, want NotFound", err)
	}

	// List, with and without a label selector.
	tests := []struct {
		selector string
		want     []string
	}{
		{"", []string{"w1", "w2", "w3"}},
		{"color=red", []string{"w1", "w3"}},
		{"color!=red", []string{"w2"}},
		{"color in (green)", nil},
	}
	for _, tc := range tests {
		list, err := w.List(ctx, metav1.ListOptions{LabelSelector: tc.selector})
		if err != nil {
			t.Fatalf("list %q: %v", tc.selector, err)
		}
		if got := names(list.Items); !slices.Equal(got, tc.want) {
			t.Errorf("list %q: got %v, want %v", tc.selector, got, tc.want)
		}
		if list.GetKind() != "WidgetList" || list.GetAPIVersion() != "example.com/v1" || list.GetResourceVersion() == "" {
			t.Errorf("list %q: got kind %q apiVersion %q rv %q, want WidgetList example.com/v1 and a resourceVersion", tc.selector, list.GetKind(), list.GetAPIVersion(), list.GetResourceVersion())
		}
	}
	// Across namespaces too.
	all, err := env.dc.Resource(widgets.gvr()).List(ctx, metav1.ListOptions{LabelSelector: "color=red"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(all.Items); !slices.Equal(got, []string{"w1", "w3"}) {
		t.Errorf("list all namespaces color=red: got %v, want [w1 w3]", got)
	}

	// Update, then a stale update: 409 Conflict.
	stale := created["w1"].DeepCopy()
	upd := created["w1"].DeepCopy()
	if err := unstructured.SetNestedField(upd.Object, int64(10), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	updated, err := w.Update(ctx, upd, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update w1: %v", err)
	}
	if nestedString(t, updated, "spec", "size") != "10" || updated.GetGeneration() != 2 || updated.GetResourceVersion() == stale.GetResourceVersion() {
		t.Errorf("update w1: got size %s generation %d rv %s, want size 10, generation 2 and a new rv", nestedString(t, updated, "spec", "size"), updated.GetGeneration(), updated.GetResourceVersion())
	}
	if err := unstructured.SetNestedField(stale.Object, int64(99), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	_, err = w.Update(ctx, stale, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Errorf("update w1 with stale resourceVersion %s: got err %v, want 409 Conflict", stale.GetResourceVersion(), err)
	}
	if got, _ := w.Get(ctx, "w1", metav1.GetOptions{}); got == nil || nestedString(t, got, "spec", "size") != "10" {
		t.Errorf("w1 after the conflicting update: want size 10 kept")
	}

	// Merge patch.
	patched, err := w.Patch(ctx, "w2", types.MergePatchType, []byte(`{"metadata":{"labels":{"tier":"gold"}},"spec":{"color":"green"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("merge patch w2: %v", err)
	}
	if nestedString(t, patched, "spec", "color") != "green" || nestedString(t, patched, "spec", "size") != "2" ||
		patched.GetLabels()["tier"] != "gold" || patched.GetLabels()["color"] != "blue" {
		t.Errorf("merge patch w2: got spec %v labels %v, want color green, size 2 kept, labels tier=gold and color=blue", patched.Object["spec"], patched.GetLabels())
	}

	// JSON patch, with a test op that holds and then one that does not.
	jp := `[{"op":"test","path":"/spec/size","value":2},{"op":"replace","path":"/spec/size","value":5},{"op":"add","path":"/spec/tags","value":["a","b"]},{"op":"remove","path":"/metadata/labels/tier"}]`
	patched, err = w.Patch(ctx, "w2", types.JSONPatchType, []byte(jp), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("JSON patch w2: %v", err)
	}
	if nestedString(t, patched, "spec", "size") != "5" || nestedString(t, patched, "spec", "tags") != "[a b]" || patched.GetLabels()["tier"] != "" {
		t.Errorf("JSON patch w2: got spec %v labels %v, want size 5, tags [a b], no tier label", patched.Object["spec"], patched.GetLabels())
	}
	_, err = w.Patch(ctx, "w2", types.JSONPatchType, []byte(`[{"op":"test","path":"/spec/size","value":2}]`), metav1.PatchOptions{})
	if err == nil || apierrors.IsNotFound(err) {
		t.Errorf("JSON patch w2 with a failing test op: got err %v, want an error (kube-apiserver answers 422 Invalid)", err)
	} else if !apierrors.IsInvalid(err) {
		t.Logf("JSON patch with a failing test op: got %v (kube-apiserver answers 422 Invalid)", err)
	}
	// Custom resources have no strategic merge patch: 415.
	_, err = w.Patch(ctx, "w2", types.StrategicMergePatchType, []byte(`{"spec":{"size":6}}`), metav1.PatchOptions{})
	if !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch on a custom resource: got err %v, want 415 UnsupportedMediaType", err)
	}
	// Patching a missing object is a 404.
	if _, err := w.Patch(ctx, "missing", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("merge patch missing: got err %v, want NotFound", err)
	}

	// Delete.
	if err := w.Delete(ctx, "w3", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete w3: %v", err)
	}
	if _, err := w.Get(ctx, "w3", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get w3 after delete: got err %v, want NotFound", err)
	}
	if err := w.Delete(ctx, "w3", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("delete w3 again: got err %v, want NotFound", err)
	}
	// A delete with a stale UID precondition is refused.
	wrongUID := types.UID("00000000-0000-0000-0000-000000000000")
	if err := w.Delete(ctx, "w1", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrongUID}}); !apierrors.IsConflict(err) {
		t.Errorf("delete w1 with a wrong UID precondition: got err %v, want 409 Conflict", err)
	}
	list, err := w.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(list.Items); !slices.Equal(got, []string{"w1", "w2"}) {
		t.Errorf("list after delete: got %v, want [w1 w2]", got)
	}
}

// TestDynamicClientStatusSubresource checks that with a status
// subresource, .status changes only through /status and the main
// resource's writes leave it alone (and /status writes leave the rest
// alone).
func TestDynamicClientStatusSubresource(t *testing.T) {
	env := startDynamic(t)
	ctx := t.Context()
	createCRD(t, env.dc, widgets)
	ns := createNamespace(t, env.cs, "status")
	w := env.dc.Resource(widgets.gvr()).Namespace(ns)

	obj := newObject(widgets, ns, "w", nil, map[string]any{"size": int64(1)})
	obj.Object["status"] = map[string]any{"phase": "FromCreate"}
	created, err := w.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st := nestedString(t, created, "status"); st != "" {
		t.Errorf("create with status: got status %s, want it dropped (status changes only through /status)", st)
	}

	// UpdateStatus sets status and ignores spec.
	upd := created.DeepCopy()
	upd.Object["status"] = map[string]any{"phase": "Ready"}
	if err := unstructured.SetNestedField(upd.Object, int64(50), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	got, err := w.UpdateStatus(ctx, upd, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status: %v", err)
	}
	if nestedString(t, got, "status", "phase") != "Ready" || nestedString(t, got, "spec", "size") != "1" {
		t.Errorf("update status: got status.phase %q spec.size %s, want Ready and 1 (spec ignored)", nestedString(t, got, "status", "phase"), nestedString(t, got, "spec", "size"))
	}
	if got.GetGeneration() != created.GetGeneration() {
		t.Errorf("update status: got generation %d, want %d unchanged", got.GetGeneration(), created.GetGeneration())
	}
	if got.GetResourceVersion() == created.GetResourceVersion() {
		t.Errorf("update status: resourceVersion did not change")
	}

	// A stale UpdateStatus conflicts.
	if _, err := w.UpdateStatus(ctx, upd, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update status with stale resourceVersion: got err %v, want 409 Conflict", err)
	}

	// A main update ignores status.
	main := got.DeepCopy()
	main.Object["status"] = map[string]any{"phase": "Hacked"}
	if err := unstructured.SetNestedField(main.Object, int64(2), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	got, err = w.Update(ctx, main, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if nestedString(t, got, "status", "phase") != "Ready" || nestedString(t, got, "spec", "size") != "2" {
		t.Errorf("update: got status.phase %q spec.size %s, want Ready (status ignored) and 2", nestedString(t, got, "status", "phase"), nestedString(t, got, "spec", "size"))
	}
	if got.GetGeneration() != created.GetGeneration()+1 {
		t.Errorf("update: got generation %d, want %d", got.GetGeneration(), created.GetGeneration()+1)
	}

	// Patches follow the same split.
	got, err = w.Patch(ctx, "w", types.MergePatchType, []byte(`{"status":{"phase":"Patched"},"spec":{"size":3}}`), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatalf("merge patch status: %v", err)
	}
	if nestedString(t, got, "status", "phase") != "Patched" || nestedString(t, got, "spec", "size") != "2" {
		t.Errorf("merge patch /status: got status.phase %q spec.size %s, want Patched and 2", nestedString(t, got, "status", "phase"), nestedString(t, got, "spec", "size"))
	}
	got, err = w.Patch(ctx, "w", types.MergePatchType, []byte(`{"status":{"phase":"Nope"},"spec":{"size":4}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("merge patch: %v", err)
	}
	if nestedString(t, got, "status", "phase") != "Patched" || nestedString(t, got, "spec", "size") != "4" {
		t.Errorf("merge patch main resource: got status.phase %q spec.size %s, want Patched (status ignored) and 4", nestedString(t, got, "status", "phase"), nestedString(t, got, "spec", "size"))
	}

	// GET of /status answers the whole object.
	st, err := w.Get(ctx, "w", metav1.GetOptions{}, "status")
	if err != nil {
		t.Fatalf("get status: %v", err)
	}
	if nestedString(t, st, "status", "phase") != "Patched" || st.GetName() != "w" {
		t.Errorf("get /status: got %v, want the object with status.phase Patched", st.Object)
	}
}

// TestDynamicClientWatch watches widgets from a list's resourceVersion
// and checks the stream carries every later write, in order, with the
// resourceVersions the writes returned.
func TestDynamicClientWatch(t *testing.T) {
	env := startDynamic(t)
	ctx := t.Context()
	createCRD(t, env.dc, widgets)
	ns := createNamespace(t, env.cs, "watch")
	w := env.dc.Resource(widgets.gvr()).Namespace(ns)
	if _, err := w.Create(ctx, newObject(widgets, ns, "before", nil, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := w.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	watcher, err := w.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer watcher.Stop()
	// A second watch only sees what matches its label selector.
	selWatcher, err := w.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion(), LabelSelector: "pick=yes"})
	if err != nil {
		t.Fatalf("watch with selector: %v", err)
	}
	defer selWatcher.Stop()

	type event struct {
		typ  watch.EventType
		name string
		rv   string
	}
	var want, wantSel []event
	a, err := w.Create(ctx, newObject(widgets, ns, "a", map[string]string{"pick": "yes"}, map[string]any{"n": int64(1)}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, event{watch.Added, "a", a.GetResourceVersion()})
	wantSel = append(wantSel, event{watch.Added, "a", a.GetResourceVersion()})
	b, err := w.Create(ctx, newObject(widgets, ns, "b", nil, nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, event{watch.Added, "b", b.GetResourceVersion()})
	a, err = w.Patch(ctx, "a", types.MergePatchType, []byte(`{"spec":{"n":2}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, event{watch.Modified, "a", a.GetResourceVersion()})
	wantSel = append(wantSel, event{watch.Modified, "a", a.GetResourceVersion()})
	a, err = w.UpdateStatus(ctx, func() *unstructured.Unstructured {
		u := a.DeepCopy()
		u.Object["status"] = map[string]any{"ok": true}
		return u
	}(), metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, event{watch.Modified, "a", a.GetResourceVersion()})
	wantSel = append(wantSel, event{watch.Modified, "a", a.GetResourceVersion()})
	// Leaving the selector is a DELETED for the selecting watch.
	a, err = w.Patch(ctx, "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"pick":"no"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, event{watch.Modified, "a", a.GetResourceVersion()})
	wantSel = append(wantSel, event{watch.Deleted, "a", a.GetResourceVersion()})
	if err := w.Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want = append(want, event{watch.Deleted, "b", ""})

	collect := func(wi watch.Interface, n int, what string) []event {
		var got []event
		for len(got) < n {
			ev := receive(t, wi.ResultChan(), fmt.Sprintf("%s event %d of %d", what, len(got)+1, n))
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				t.Fatalf("%s: got %s event with %T (%v), want an unstructured widget", what, ev.Type, ev.Object, ev.Object)
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			if u.GetKind() != "Widget" {
				t.Errorf("%s: got kind %q in %s event, want Widget", what, u.GetKind(), ev.Type)
			}
			got = append(got, event{ev.Type, u.GetName(), u.GetResourceVersion()})
		}
		return got
	}
	got := collect(watcher, len(want), "watch")
	// The delete's resourceVersion is only known from the event; it must
	// be newer than every earlier one.
	if n := len(got); n == len(want) && got[n-1].typ == watch.Deleted {
		want[n-1].rv = got[n-1].rv
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("watch events:\n got %v\nwant %v", got, want)
	}
	gotSel := collect(selWatcher, len(wantSel), "selector watch")
	if fmt.Sprint(gotSel) != fmt.Sprint(wantSel) {
		t.Errorf("selector watch events:\n got %v\nwant %v", gotSel, wantSel)
	}
}

// TestDynamicClientClusterScoped drives a cluster-scoped custom resource.
func TestDynamicClientClusterScoped(t *testing.T) {
	env := startDynamic(t)
	ctx := t.Context()
	createCRD(t, env.dc, gadgets)
	g := env.dc.Resource(gadgets.gvr())

	created, err := g.Create(ctx, newObject(gadgets, "", "g1", map[string]string{"kind": "a"}, map[string]any{"x": "1"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.GetNamespace() != "" {
		t.Errorf("create: got namespace %q, want none", created.GetNamespace())
	}
	if _, err := g.Create(ctx, newObject(gadgets, "", "g2", map[string]string{"kind": "b"}, nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := g.Get(ctx, "g1", metav1.GetOptions{})
	if err != nil || got.GetUID() != created.GetUID() {
		t.Fatalf("get g1: got %v (err %v), want uid %s", got, err, created.GetUID())
	}
	list, err := g.List(ctx, metav1.ListOptions{LabelSelector: "kind=b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(list.Items); !slices.Equal(got, []string{"g2"}) {
		t.Errorf("list kind=b: got %v, want [g2]", got)
	}
	got, err = g.UpdateStatus(ctx, func() *unstructured.Unstructured {
		u := got.DeepCopy()
		u.Object["status"] = map[string]any{"ok": "yes"}
		return u
	}(), metav1.UpdateOptions{})
	if err != nil || nestedString(t, got, "status", "ok") != "yes" {
		t.Errorf("update status: got %v (err %v), want status.ok yes", got, err)
	}
	got, err = g.Patch(ctx, "g1", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/x","value":"2"}]`), metav1.PatchOptions{})
	if err != nil || nestedString(t, got, "spec", "x") != "2" {
		t.Errorf("JSON patch: got %v (err %v), want spec.x 2", got, err)
	}
	if err := g.Delete(ctx, "g1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Get(ctx, "g1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get g1 after delete: got err %v, want NotFound", err)
	}
}

// TestDeleteCRDDeletesObjects deletes a CRD that still has objects: they
// go with it, the resource answers 404, and a CRD created again with the
// same name starts empty.
func TestDeleteCRDDeletesObjects(t *testing.T) {
	env := startDynamic(t)
	ctx := t.Context()
	createCRD(t, env.dc, widgets)
	ns := createNamespace(t, env.cs, "gone")
	w := env.dc.Resource(widgets.gvr()).Namespace(ns)
	for _, name := range []string{"x", "y"} {
		if _, err := w.Create(ctx, newObject(widgets, ns, name, nil, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	deleteCRDAndWait(t, env.dc, widgets)
	if _, err := w.List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("list widgets after deleting the CRD: got err %v, want NotFound", err)
	}
	if _, err := w.Get(ctx, "x", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get widget x after deleting the CRD: got err %v, want NotFound", err)
	}
	if _, err := w.Create(ctx, newObject(widgets, ns, "z", nil, nil), metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("create widget after deleting the CRD: got err %v, want NotFound", err)
	}

	createCRD(t, env.dc, widgets)
	list, err := w.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list widgets after creating the CRD again: %v", err)
	}
	if got := names(list.Items); len(got) != 0 {
		t.Errorf("list widgets after creating the CRD again: got %v, want none (deleted with the CRD)", got)
	}
}

// TestDynamicInformer runs client-go's dynamic informer on a custom
// resource, with the WatchList client feature on and off.
func TestDynamicInformer(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchList=%v", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			env := startDynamic(t)
			ctx := t.Context()
			createCRD(t, env.dc, widgets)
			ns := createNamespace(t, env.cs, "dyninf")
			w := env.dc.Resource(widgets.gvr()).Namespace(ns)
			if _, err := w.Create(ctx, newObject(widgets, ns, "before", nil, nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}

			factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(env.dc, 0, ns, nil)
			inf := factory.ForResource(widgets.gvr())
			events := make(chan objEvent, 100)
			if _, err := inf.Informer().AddEventHandler(objEventHandler(events)); err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx.Done())
			t.Cleanup(factory.Shutdown)
			for gvr, ok := range factory.WaitForCacheSync(ctxWithTimeout(t).Done()) {
				if !ok {
					t.Fatalf("informer for %v did not sync", gvr)
				}
			}
			expectObjEvent(t, events, "add", "before", "")

			a, err := w.Create(ctx, newObject(widgets, ns, "a", nil, map[string]any{"n": int64(1)}), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := expectObjEvent(t, events, "add", "a", a.GetResourceVersion())
			if u, ok := got.obj.(*unstructured.Unstructured); !ok || u.GroupVersionKind() != widgets.gvk() {
				t.Errorf("dynamic informer add: got %T %v, want an unstructured %v", got.obj, got.obj, widgets.gvk())
			}
			a, err = w.Patch(ctx, "a", types.MergePatchType, []byte(`{"spec":{"n":2}}`), metav1.PatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			expectObjEvent(t, events, "update", "a", a.GetResourceVersion())
			a.Object["status"] = map[string]any{"ready": true}
			a, err = w.UpdateStatus(ctx, a, metav1.UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			expectObjEvent(t, events, "update", "a", a.GetResourceVersion())
			if err := w.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			expectObjEvent(t, events, "delete", "a", "")
			cached, err := inf.Lister().ByNamespace(ns).List(labels.Everything())
			if err != nil {
				t.Fatal(err)
			}
			if len(cached) != 1 {
				t.Errorf("dynamic lister: got %d widgets, want 1 (before)", len(cached))
			}

			reqs := env.rec.requests(func(r recordedRequest) bool {
				return r.Method == "GET" && r.URL.Path == "/apis/example.com/v1/namespaces/"+ns+"/widgets"
			})
			if watchList && (countWhere(reqs, isWatchList) == 0 || countWhere(reqs, isPlainList) != 0) {
				t.Errorf("WatchList on: got %d WatchList requests and %d LISTs, want some and 0", countWhere(reqs, isWatchList), countWhere(reqs, isPlainList))
			}
			if !watchList && (countWhere(reqs, isPlainList) == 0 || countWhere(reqs, isWatchList) != 0) {
				t.Errorf("WatchList off: got %d LISTs and %d WatchList requests, want some and 0", countWhere(reqs, isPlainList), countWhere(reqs, isWatchList))
			}
		})
	}
}

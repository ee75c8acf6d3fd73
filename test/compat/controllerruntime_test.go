package compat_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

const (
	sourceLabel    = "compat.setpoint.dev/source"
	reconciledAnno = "compat.setpoint.dev/reconciled"
)

var setLoggerOnce sync.Once

// setControllerRuntimeLogger gives controller-runtime a logger (to
// stderr: it is global, so it cannot be a test's), or it complains.
func setControllerRuntimeLogger() {
	setLoggerOnce.Do(func() {
		ctrl.SetLogger(funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{}))
	})
}

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// deriver keeps, for every ConfigMap labelled as a source, a ConfigMap
// "<name>-derived" with the same data, owned by the source, and marks the
// source reconciled. Without a garbage collector in the server it deletes
// the derived ConfigMap itself once the source is gone.
type deriver struct {
	client.Client
	scheme *runtime.Scheme
}

func derivedName(source string) string { return source + "-derived" }

func (r *deriver) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var src corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &src); apierrors.IsNotFound(err) {
		d := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: derivedName(req.Name)}}
		return reconcile.Result{}, client.IgnoreNotFound(r.Delete(ctx, d))
	} else if err != nil {
		return reconcile.Result{}, err
	}
	if src.Labels[sourceLabel] != "true" {
		return reconcile.Result{}, nil
	}
	derived := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: src.Namespace, Name: derivedName(src.Name)}}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, derived, func() error {
		derived.Data = maps.Clone(src.Data)
		return controllerutil.SetControllerReference(&src, derived, r.scheme)
	}); err != nil {
		return reconcile.Result{}, err
	}
	if src.Annotations[reconciledAnno] != "true" {
		orig := src.DeepCopy()
		if src.Annotations == nil {
			src.Annotations = map[string]string{}
		}
		src.Annotations[reconciledAnno] = "true"
		if err := r.Patch(ctx, &src, client.MergeFrom(orig)); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}

// TestControllerRuntimeManager runs a manager with leader election and a
// ConfigMap controller against the server, with controller-runtime's
// default of protobuf for built-in kinds.
func TestControllerRuntimeManager(t *testing.T) {
	setControllerRuntimeLogger()
	srv := apiservertest.Start(t)
	rec := newRecorder(t)
	cfg := rec.wrap(srv.Config)
	scheme := newScheme(t)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	const ns = "manager"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}

	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                        scheme,
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		LeaderElection:                true,
		LeaderElectionID:              "compat-manager",
		LeaderElectionNamespace:       ns,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 ptr.To(2 * time.Second),
		RenewDeadline:                 ptr.To(1500 * time.Millisecond),
		RetryPeriod:                   ptr.To(200 * time.Millisecond),
		Controller:                    config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	isSource := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[sourceLabel] == "true" })
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("compat-deriver").
		For(&corev1.ConfigMap{}, builder.WithPredicates(isSource)).
		Owns(&corev1.ConfigMap{}).
		Complete(&deriver{Client: mgr.GetClient(), scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	mgrCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("manager: %v", err)
			}
		case <-time.After(waitTimeout):
			t.Errorf("manager did not stop within %v", waitTimeout)
		}
	})
	select {
	case <-mgr.Elected():
	case err := <-done:
		t.Fatalf("manager stopped before it was elected: %v", err)
	case <-time.After(waitTimeout):
		t.Fatalf("manager not elected within %v", waitTimeout)
	}
	var lease coordinationv1.Lease
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "compat-manager"}, &lease); err != nil {
		t.Fatalf("get leader election lease: %v", err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("leader election lease: got no holderIdentity, want the manager's")
	}

	// expectDerived waits until the source is marked reconciled and its
	// derived ConfigMap has want as data and the source as controller.
	expectDerived := func(source string, want map[string]string) {
		t.Helper()
		waitFor(t, fmt.Sprintf("%s to be reconciled into %s with data %v", source, derivedName(source), want), func() (bool, error) {
			var src, d corev1.ConfigMap
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: source}, &src); err != nil {
				return false, err
			}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: derivedName(source)}, &d); err != nil {
				return false, err
			}
			owner := metav1.GetControllerOf(&d)
			ok := src.Annotations[reconciledAnno] == "true" && maps.Equal(d.Data, want) && owner != nil && owner.UID == src.UID
			return ok, fmt.Errorf("source annotations %v, derived data %v owner %v", src.Annotations, d.Data, owner)
		})
	}

	for i := range 3 {
		name := fmt.Sprintf("source-%d", i)
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{sourceLabel: "true"}},
			Data:       map[string]string{"i": fmt.Sprint(i)},
		}
		if err := c.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	// Not a source: left alone.
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bystander"}}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		expectDerived(fmt.Sprintf("source-%d", i), map[string]string{"i": fmt.Sprint(i)})
	}

	// A change to the source reaches the derived ConfigMap.
	var src corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "source-0"}, &src); err != nil {
		t.Fatal(err)
	}
	src.Data["extra"] = "yes"
	if err := c.Update(ctx, &src); err != nil {
		t.Fatal(err)
	}
	expectDerived("source-0", map[string]string{"i": "0", "extra": "yes"})

	// A hand edit of the derived ConfigMap is undone (Owns watch).
	var d corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: derivedName("source-1")}, &d); err != nil {
		t.Fatal(err)
	}
	d.Data = map[string]string{"tampered": "true"}
	if err := c.Update(ctx, &d); err != nil {
		t.Fatal(err)
	}
	expectDerived("source-1", map[string]string{"i": "1"})

	// Deleting the source deletes the derived ConfigMap.
	if err := c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "source-2"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, derivedName("source-2")+" to be deleted with its source", func() (bool, error) {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: derivedName("source-2")}, &corev1.ConfigMap{})
		return apierrors.IsNotFound(err), err
	})

	var bystander corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "bystander"}, &bystander); err != nil {
		t.Fatal(err)
	}
	if _, ok := bystander.Annotations[reconciledAnno]; ok {
		t.Errorf("bystander ConfigMap was reconciled, want it filtered out")
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: derivedName("bystander")}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("get %s: got err %v, want NotFound", derivedName("bystander"), err)
	}

	// The manager talked protobuf for ConfigMaps and Leases, as
	// controller-runtime does by default.
	for _, resource := range []string{"configmaps", "leases"} {
		reqs := rec.requests(func(r recordedRequest) bool {
			return strings.HasSuffix(r.URL.Path, "/"+resource) || strings.Contains(r.URL.Path, "/"+resource+"/")
		})
		if len(reqs) == 0 {
			t.Errorf("no requests on %s recorded", resource)
		}
		for _, r := range reqs {
			if !strings.HasPrefix(r.Accept, protobufContentType) {
				t.Errorf("%s %s: Accept %q, want protobuf first (controller-runtime's default)", r.Method, r.URL, r.Accept)
			}
			// A Status (errors, and the answer to deleting a built-in
			// object) may come as JSON: the Accept header allows it and
			// client-go decodes by the response's Content-Type.
			if r.Status < 400 && r.Method != "DELETE" && !strings.HasPrefix(r.RespType, protobufContentType) {
				t.Errorf("%s %s: got response Content-Type %q, want protobuf", r.Method, r.URL, r.RespType)
			}
		}
	}
}

// TestControllerRuntimeClient drives controller-runtime's client through
// every verb on ConfigMaps (protobuf) and on an unstructured custom
// resource (JSON).
func TestControllerRuntimeClient(t *testing.T) {
	setControllerRuntimeLogger()
	// A foreground delete waits for the garbage collector.
	srv := startServer(t)
	rec := newRecorder(t)
	cfg := rec.wrap(srv.Config)
	scheme := newScheme(t)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	const ns = "crclient"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	// As in kube, the new namespace gets its CA bundle, which the lists
	// of ConfigMaps below hold too.
	const rootCA = "kube-root-ca.crt"
	waitFor(t, "the namespace's "+rootCA, func() (bool, error) {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: rootCA}, &corev1.ConfigMap{})
		return err == nil, err
	})

	t.Run("ConfigMap", func(t *testing.T) {
		for i, color := range []string{"red", "blue", "red"} {
			cm := &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%d", i), Labels: map[string]string{"color": color}},
				Data:       map[string]string{"i": fmt.Sprint(i)},
			}
			if err := c.Create(ctx, cm); err != nil {
				t.Fatalf("create: %v", err)
			}
			if cm.UID == "" || cm.ResourceVersion == "" {
				t.Errorf("create %s: got uid %q rv %q, want both filled in from the answer", cm.Name, cm.UID, cm.ResourceVersion)
			}
		}
		var got corev1.ConfigMap
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "cm-0"}, &got); err != nil {
			t.Fatal(err)
		}
		if got.Data["i"] != "0" || got.Labels["color"] != "red" {
			t.Errorf("get cm-0: got data %v labels %v", got.Data, got.Labels)
		}

		var list corev1.ConfigMapList
		if err := c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{"color": "red"}); err != nil {
			t.Fatal(err)
		}
		var gotNames []string
		for _, it := range list.Items {
			gotNames = append(gotNames, it.Name)
		}
		slices.Sort(gotNames)
		if !slices.Equal(gotNames, []string{"cm-0", "cm-2"}) {
			t.Errorf("list color=red: got %v, want [cm-0 cm-2]", gotNames)
		}
		// Paging with Limit and Continue, over the three and the CA bundle.
		var page corev1.ConfigMapList
		if err := c.List(ctx, &page, client.InNamespace(ns), client.Limit(3)); err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 3 || page.Continue == "" {
			t.Errorf("list limit 3: got %d items continue %q, want 3 and a continue token", len(page.Items), page.Continue)
		} else {
			var rest corev1.ConfigMapList
			if err := c.List(ctx, &rest, client.InNamespace(ns), client.Limit(3), client.Continue(page.Continue)); err != nil {
				t.Fatal(err)
			}
			if len(rest.Items) != 1 || rest.Continue != "" {
				t.Errorf("list second page: got %d items continue %q, want 1 and none", len(rest.Items), rest.Continue)
			}
		}

		stale := got.DeepCopy()
		got.Data["i"] = "updated"
		if err := c.Update(ctx, &got); err != nil {
			t.Fatalf("update: %v", err)
		}
		if got.ResourceVersion == stale.ResourceVersion {
			t.Errorf("update: resourceVersion not refreshed from the answer")
		}
		stale.Data["i"] = "stale"
		if err := c.Update(ctx, stale); !apierrors.IsConflict(err) {
			t.Errorf("update with stale resourceVersion: got err %v, want 409 Conflict", err)
		}

		patches := []struct {
			name  string
			patch func(*corev1.ConfigMap) client.Patch
			want  map[string]string
		}{
			{"merge", func(cm *corev1.ConfigMap) client.Patch {
				orig := cm.DeepCopy()
				cm.Data["merge"] = "1"
				return client.MergeFrom(orig)
			}, map[string]string{"i": "updated", "merge": "1"}},
			{"merge with optimistic lock", func(cm *corev1.ConfigMap) client.Patch {
				orig := cm.DeepCopy()
				delete(cm.Data, "merge")
				return client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})
			}, map[string]string{"i": "updated"}},
			{"strategic merge", func(cm *corev1.ConfigMap) client.Patch {
				orig := cm.DeepCopy()
				cm.Data["smp"] = "1"
				return client.StrategicMergeFrom(orig)
			}, map[string]string{"i": "updated", "smp": "1"}},
			{"JSON patch", func(cm *corev1.ConfigMap) client.Patch {
				return client.RawPatch(types.JSONPatchType, []byte(`[{"op":"remove","path":"/data/smp"},{"op":"add","path":"/data/json","value":"1"}]`))
			}, map[string]string{"i": "updated", "json": "1"}},
		}
		for _, p := range patches {
			cm := got.DeepCopy()
			if err := c.Patch(ctx, cm, p.patch(cm)); err != nil {
				t.Fatalf("%s patch: %v", p.name, err)
			}
			if !maps.Equal(cm.Data, p.want) {
				t.Errorf("%s patch: got data %v, want %v", p.name, cm.Data, p.want)
			}
			got = *cm
		}
		// An optimistic-lock merge patch from a stale object conflicts.
		if err := c.Patch(ctx, stale.DeepCopy(), client.MergeFromWithOptions(stale.DeepCopy(), client.MergeFromWithOptimisticLock{})); !apierrors.IsConflict(err) {
			t.Errorf("merge patch with a stale resourceVersion: got err %v, want 409 Conflict", err)
		}

		if err := c.Delete(ctx, &got); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(&got), &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after delete: got err %v, want NotFound", err)
		}
		if err := c.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(ns), client.MatchingLabels{"color": "blue"}); err != nil {
			t.Fatalf("delete all of color=blue: %v", err)
		}
		list = corev1.ConfigMapList{}
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 2 || list.Items[0].Name != "cm-2" || list.Items[1].Name != rootCA {
			t.Errorf("list after deletes: got %d items, want [cm-2 %s]", len(list.Items), rootCA)
		}

		// Metadata-only reads, as OnlyMetadata controllers do.
		pom := &metav1.PartialObjectMetadata{}
		pom.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "cm-2"}, pom); err != nil {
			t.Fatalf("get metadata: %v", err)
		}
		if pom.Name != "cm-2" || pom.Labels["color"] != "red" || pom.UID == "" {
			t.Errorf("get metadata cm-2: got %+v", pom.ObjectMeta)
		}
		pomList := &metav1.PartialObjectMetadataList{}
		pomList.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
		if err := c.List(ctx, pomList, client.InNamespace(ns)); err != nil {
			t.Fatalf("list metadata: %v", err)
		}
		if len(pomList.Items) != 2 || pomList.Items[0].Name != "cm-2" || pomList.Items[1].Name != rootCA {
			t.Errorf("list metadata: got %d items, want [cm-2 %s]", len(pomList.Items), rootCA)
		}

		// generateName, dry run, unconditional update, foreground delete.
		gen := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "gen-"}}
		if err := c.Create(ctx, gen); err != nil {
			t.Fatalf("create with generateName: %v", err)
		}
		if !strings.HasPrefix(gen.Name, "gen-") || len(gen.Name) <= len("gen-") {
			t.Errorf("create with generateName gen-: got name %q", gen.Name)
		}
		dry := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "dry"}}
		if err := c.Create(ctx, dry, client.DryRunAll); err != nil {
			t.Fatalf("dry-run create: %v", err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(dry), &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after dry-run create: got err %v, want NotFound", err)
		}
		unconditional := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: gen.Name}, Data: map[string]string{"forced": "yes"}}
		if err := c.Update(ctx, unconditional); err != nil {
			t.Errorf("update without resourceVersion (unconditional): %v", err)
		}
		if err := c.Delete(ctx, gen, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
			t.Fatalf("foreground delete: %v", err)
		}
		waitFor(t, "the foreground-deleted ConfigMap (no dependents) to be gone", func() (bool, error) {
			err := c.Get(ctx, client.ObjectKeyFromObject(gen), &corev1.ConfigMap{})
			return apierrors.IsNotFound(err), err
		})

		// All of that was protobuf.
		for _, r := range rec.requests(func(r recordedRequest) bool { return strings.Contains(r.URL.Path, "/configmaps") }) {
			if !strings.HasPrefix(r.Accept, protobufContentType) {
				t.Errorf("%s %s: Accept %q, want protobuf first", r.Method, r.URL, r.Accept)
			}
			if (r.Method == "POST" || r.Method == "PUT") && r.ContentType != protobufContentType {
				t.Errorf("%s %s: request Content-Type %q, want protobuf", r.Method, r.URL, r.ContentType)
			}
		}
	})

	t.Run("Unstructured", func(t *testing.T) {
		crd := widgets.object()
		if err := c.Create(ctx, crd); err != nil {
			t.Fatalf("create CRD: %v", err)
		}
		newWidget := func(name string, labels map[string]string) *unstructured.Unstructured {
			return newObject(widgets, ns, name, labels, map[string]any{"size": int64(1)})
		}
		for _, name := range []string{"a", "b"} {
			if err := c.Create(ctx, newWidget(name, map[string]string{"name": name})); err != nil {
				t.Fatalf("create widget %s: %v", name, err)
			}
		}
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(widgets.gvk())
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, got); err != nil {
			t.Fatalf("get: %v", err)
		}
		if got.GetUID() == "" || nestedString(t, got, "spec", "size") != "1" {
			t.Errorf("get a: got %v", got.Object)
		}

		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(widgets.gvk().GroupVersion().WithKind("WidgetList"))
		if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"name": "b"}); err != nil {
			t.Fatalf("list: %v", err)
		}
		if got := names(list.Items); !slices.Equal(got, []string{"b"}) {
			t.Errorf("list name=b: got %v, want [b]", got)
		}

		stale := got.DeepCopy()
		if err := unstructured.SetNestedField(got.Object, int64(2), "spec", "size"); err != nil {
			t.Fatal(err)
		}
		if err := c.Update(ctx, got); err != nil {
			t.Fatalf("update: %v", err)
		}
		if nestedString(t, got, "spec", "size") != "2" || got.GetGeneration() != 2 {
			t.Errorf("update: got size %s generation %d, want 2 and 2", nestedString(t, got, "spec", "size"), got.GetGeneration())
		}
		if err := c.Update(ctx, stale); !apierrors.IsConflict(err) {
			t.Errorf("update with stale resourceVersion: got err %v, want 409 Conflict", err)
		}

		withStatus := got.DeepCopy()
		withStatus.Object["status"] = map[string]any{"phase": "Ready"}
		if err := c.Status().Update(ctx, withStatus); err != nil {
			t.Fatalf("status update: %v", err)
		}
		if nestedString(t, withStatus, "status", "phase") != "Ready" {
			t.Errorf("status update: got status %v, want phase Ready", withStatus.Object["status"])
		}
		orig := withStatus.DeepCopy()
		withStatus.Object["status"] = map[string]any{"phase": "Patched"}
		if err := c.Status().Patch(ctx, withStatus, client.MergeFrom(orig)); err != nil {
			t.Fatalf("status patch: %v", err)
		}
		if nestedString(t, withStatus, "status", "phase") != "Patched" {
			t.Errorf("status patch: got status %v, want phase Patched", withStatus.Object["status"])
		}

		orig = withStatus.DeepCopy()
		if err := unstructured.SetNestedField(withStatus.Object, "green", "spec", "color"); err != nil {
			t.Fatal(err)
		}
		if err := c.Patch(ctx, withStatus, client.MergeFrom(orig)); err != nil {
			t.Fatalf("merge patch: %v", err)
		}
		if nestedString(t, withStatus, "spec", "color") != "green" || nestedString(t, withStatus, "status", "phase") != "Patched" {
			t.Errorf("merge patch: got %v, want spec.color green and status kept", withStatus.Object)
		}

		// A finalizer holds a deleted object until it is removed, as
		// controllers using controllerutil.AddFinalizer rely on.
		const finalizer = "compat.setpoint.dev/cleanup"
		held := newWidget("held", nil)
		controllerutil.AddFinalizer(held, finalizer)
		if err := c.Create(ctx, held); err != nil {
			t.Fatalf("create with finalizer: %v", err)
		}
		if err := c.Delete(ctx, held); err != nil {
			t.Fatalf("delete with finalizer: %v", err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(held), held); err != nil {
			t.Fatalf("get after delete with finalizer: got err %v, want the object, marked deleted", err)
		}
		if held.GetDeletionTimestamp() == nil {
			t.Errorf("object with finalizer after delete: no deletionTimestamp")
		}
		orig = held.DeepCopy()
		controllerutil.RemoveFinalizer(held, finalizer)
		if err := c.Patch(ctx, held, client.MergeFrom(orig)); err != nil {
			t.Fatalf("remove finalizer: %v", err)
		}
		waitFor(t, "the object to be gone once its finalizer is removed", func() (bool, error) {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(widgets.gvk())
			err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "held"}, u)
			return apierrors.IsNotFound(err), err
		})

		if err := c.Delete(ctx, withStatus); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, got); !apierrors.IsNotFound(err) {
			t.Errorf("get after delete: got err %v, want NotFound", err)
		}
		if err := c.DeleteAllOf(ctx, newWidget("", nil), client.InNamespace(ns)); err != nil {
			t.Fatalf("delete all widgets: %v", err)
		}
		list = &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(widgets.gvk().GroupVersion().WithKind("WidgetList"))
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 0 {
			t.Errorf("list after delete all: got %v, want none", names(list.Items))
		}
	})
}

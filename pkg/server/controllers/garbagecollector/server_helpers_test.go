package garbagecollector_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/garbagecollector"
)

// Tests against a real server run the collector as a product does: a
// manager with Setup, over an in-process API server. The test writes
// with its own client and watches the outcome.

const testGroup = "gc.test.setpoint.dev"

var (
	configMap = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	// widget is a namespaced custom kind, gadget a cluster-scoped one.
	widget = schema.GroupVersionKind{Group: testGroup, Version: "v1", Kind: "Widget"}
	gadget = schema.GroupVersionKind{Group: testGroup, Version: "v1", Kind: "Gadget"}
	// clusterScoped are the test kinds without namespaces.
	clusterScoped = map[string]bool{"Gadget": true, "Flange": true}
)

// holdFinalizer keeps an object the collector deleted in sight until
// the test lets it go.
const holdFinalizer = "test.setpoint.dev/hold"

// logBuffer collects the logs a test checks.
type logBuffer = envtest.Logs

// env is a server with the collector running on it.
type env struct {
	t    *testing.T
	c    *client.Client
	ns   string
	logs *logBuffer
}

// startEnv starts a server with the Widget and Gadget kinds, and a
// manager running the collector; both stop when the test ends, and the
// manager must stop without an error log.
func startEnv(t *testing.T) *env {
	t.Helper()
	return startEnvWith(t, nil)
}

// startEnvWith is startEnv with the collector changed by adjust, when
// not nil, before it starts.
func startEnvWith(t *testing.T, adjust func(*garbagecollector.Runnable)) *env {
	t.Helper()
	srv := envtest.Start(t, envtest.WithoutControllers())
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := client.New(srv.Config(), client.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, c: c, logs: &logBuffer{}}
	e.createCRD(crdFor(widget, "widgets", apiextensionsv1.NamespaceScoped))
	e.createCRD(crdFor(gadget, "gadgets", apiextensionsv1.ClusterScoped))

	t.Cleanup(func() {
		if os.Getenv("GC_TEST_LOGS") != "" {
			t.Logf("collector logs:\n%s", e.logs.String())
		}
	})
	srv.StartManager(t, func(m *manager.Manager) error {
		if adjust == nil {
			return garbagecollector.Setup(m, garbagecollector.Options{Workers: 4})
		}
		// as Setup makes it
		r := garbagecollector.NewRunnable(m, garbagecollector.Options{Workers: 4})
		adjust(r)
		return m.Add(r)
	}, envtest.WithLogs(e.logs, slog.LevelDebug))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gc-"}}
	if err := c.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	e.ns = ns.Name
	return e
}

func crdFor(gvk schema.GroupVersionKind, plural string, scope apiextensionsv1.ResourceScope) *apiextensionsv1.CustomResourceDefinition {
	keep := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + gvk.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: gvk.Group,
			Scope: scope,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: plural, Singular: strings.ToLower(gvk.Kind), Kind: gvk.Kind, ListKind: gvk.Kind + "List",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: gvk.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &keep,
				}},
			}},
		},
	}
}

// createCRD creates crd; the server answers once its kind is served.
func (e *env) createCRD(crd *apiextensionsv1.CustomResourceDefinition) {
	e.t.Helper()
	if err := e.c.Create(e.t.Context(), crd); err != nil {
		e.t.Fatal(err)
	}
}

// obj is an object the test made: its kind and its identity.
type obj struct {
	gvk  schema.GroupVersionKind
	meta metav1.ObjectMeta
}

func (o obj) String() string { return o.gvk.Kind + " " + o.meta.Name }

// ref is a reference to o as an owner.
func (o obj) ref(block bool) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: o.gvk.GroupVersion().String(), Kind: o.gvk.Kind,
		Name: o.meta.Name, UID: o.meta.UID, BlockOwnerDeletion: &block,
	}
}

// create makes an object of kind gvk (a typed ConfigMap, or an
// unstructured custom resource) with a generated name, owned by owners.
func (e *env) create(gvk schema.GroupVersionKind, owners ...metav1.OwnerReference) obj {
	e.t.Helper()
	return e.createWith(gvk, metav1.ObjectMeta{GenerateName: strings.ToLower(gvk.Kind) + "-", OwnerReferences: owners})
}

func (e *env) createWith(gvk schema.GroupVersionKind, meta metav1.ObjectMeta) obj {
	e.t.Helper()
	scoped := !clusterScoped[gvk.Kind]
	if scoped {
		meta.Namespace = e.ns
	}
	var o client.Object
	if gvk == configMap {
		o = &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}}
	} else {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": int64(1)}}}
		u.SetGroupVersionKind(gvk)
		u.SetNamespace(meta.Namespace)
		u.SetName(meta.Name)
		u.SetGenerateName(meta.GenerateName)
		u.SetOwnerReferences(meta.OwnerReferences)
		u.SetFinalizers(meta.Finalizers)
		o = u
	}
	if err := e.c.Create(e.t.Context(), o); err != nil {
		e.t.Fatalf("creating %s: %v", gvk.Kind, err)
	}
	return obj{gvk: gvk, meta: metav1.ObjectMeta{Namespace: o.GetNamespace(), Name: o.GetName(), UID: o.GetUID()}}
}

// get reads o's metadata; nil once o (this incarnation) is gone.
func (e *env) get(o obj) *metav1.PartialObjectMetadata {
	e.t.Helper()
	got := &metav1.PartialObjectMetadata{}
	got.SetGroupVersionKind(o.gvk)
	err := e.c.Get(e.t.Context(), types.NamespacedName{Namespace: o.meta.Namespace, Name: o.meta.Name}, got)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	if got.UID != o.meta.UID {
		return nil
	}
	return got
}

func (e *env) delete(o obj, policy metav1.DeletionPropagation) {
	e.t.Helper()
	m := &metav1.PartialObjectMetadata{ObjectMeta: o.meta}
	m.SetGroupVersionKind(o.gvk)
	var opts []client.DeleteOption
	if policy != "" {
		opts = append(opts, client.PropagationPolicy(policy))
	}
	if err := e.c.Delete(e.t.Context(), m, opts...); err != nil {
		e.t.Fatalf("deleting %s: %v", o, err)
	}
}

// patchMeta merge-patches o's metadata; o may be gone already.
func (e *env) patchMeta(o obj, meta map[string]any) {
	e.t.Helper()
	m := &metav1.PartialObjectMetadata{ObjectMeta: o.meta}
	m.SetGroupVersionKind(o.gvk)
	body, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.c.Patch(e.t.Context(), m, types.MergePatchType, body); err != nil && !client.IsNotFound(err) {
		e.t.Fatalf("patching %s: %v", o, err)
	}
}

// release removes the hold finalizer from o.
func (e *env) release(o obj) {
	e.t.Helper()
	e.patchMeta(o, map[string]any{"finalizers": nil})
}

// eventually polls cond until it holds; the deadline only bounds a
// failing test.
func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitGone waits until every one of objs is gone.
func (e *env) waitGone(objs ...obj) {
	e.t.Helper()
	for _, o := range objs {
		e.eventually(o.String()+" is gone", func() bool { return e.get(o) == nil })
	}
}

// waitGoneInOrder waits until chain (owner first) is gone, checking on
// every read that no owner went while a dependent of it was left: each
// poll reads owners before dependents, so a gone owner followed by a
// present dependent is a real violation.
func (e *env) waitGoneInOrder(chain ...obj) {
	e.t.Helper()
	e.eventually("the chain is gone", func() bool {
		goneAbove := ""
		all := true
		for _, o := range chain {
			if e.get(o) == nil {
				if goneAbove == "" {
					goneAbove = o.String()
				}
				continue
			}
			all = false
			if goneAbove != "" {
				e.t.Fatalf("%s went before its dependent %s", goneAbove, o)
			}
		}
		return all
	})
}

func hasFinalizer(m *metav1.PartialObjectMetadata, f string) bool {
	return m != nil && slices.Contains(m.Finalizers, f)
}

func deletingWith(m *metav1.PartialObjectMetadata, f string) bool {
	return m != nil && m.DeletionTimestamp != nil && hasFinalizer(m, f)
}

// settle waits until the collector's graph holds every object of kinds
// created so far. The graph follows the informers, which lag the
// server; a foreground or orphan deletion judged before a dependent
// reaches the graph misses it, in Kubernetes as here, so tests that
// check the order of a cascade settle first. For each kind it creates
// an object whose owner never existed and waits until the collector
// deletes it: each informer delivers its kind in revision order, so
// the graph then holds everything of that kind created before.
func (e *env) settle(kinds ...schema.GroupVersionKind) {
	e.t.Helper()
	var sentinels []obj
	for i, gvk := range kinds {
		ghost := obj{gvk: gvk, meta: metav1.ObjectMeta{Name: "ghost", UID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-1%011d", i))}}
		sentinels = append(sentinels, e.createWith(gvk, metav1.ObjectMeta{GenerateName: "sentinel-", OwnerReferences: []metav1.OwnerReference{ghost.ref(false)}}))
	}
	e.waitGone(sentinels...)
}

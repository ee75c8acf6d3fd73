package namespace_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/internal/logtest"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/namespace"
)

// testFinalizer holds test objects until the test lets them go.
const testFinalizer = "test.setpoint.dev/hold"

var widgetGVK = schema.GroupVersionKind{Group: "test.setpoint.dev", Version: "v1", Kind: "Widget"}

// startServer starts a test server. The server itself no longer
// cleans up namespaces or CRDs, so whatever cleanup a test sees, the
// controller under test did.
func startServer(t testing.TB) *apiservertest.Server {
	t.Helper()
	return apiservertest.Start(t)
}

// logBuffer collects the logs a test checks.
type logBuffer = logtest.Buffer

// withController sets the namespace controller up on a manager.
func withController(opts namespace.Options) func(*manager.Manager) error {
	return func(m *manager.Manager) error { return namespace.Setup(m, opts) }
}

// runManager runs a manager with what setups add until the test ends,
// then checks it stopped cleanly and logged no error.
func runManager(t testing.TB, cfg *rest.Config, setups ...func(*manager.Manager) error) {
	t.Helper()
	logs := &logBuffer{}
	m, err := manager.New(cfg, manager.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, setup := range setups {
		if err := setup(m); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
		if strings.Contains(logs.String(), "level=ERROR") {
			t.Errorf("the manager logged errors:\n%s", logs)
		}
	})
}

func newClient(t testing.TB, cfg *rest.Config) *client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// widgetCRD defines Widgets: namespaced, any content kept.
func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	keep := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + widgetGVK.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widgetGVK.Group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: widgetGVK.Kind, ListKind: widgetGVK.Kind + "List",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: widgetGVK.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &keep,
				}},
			}},
		},
	}
}

func newWidget(ns, name string, finalizers ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": int64(1)}}}
	u.SetGroupVersionKind(widgetGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetFinalizers(finalizers)
	return u
}

func newConfigMap(ns, name string, finalizers ...string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Finalizers: finalizers},
		Data:       map[string]string{"k": "v"},
	}
}

// populate creates n objects in namespace ns, alternating ConfigMaps
// and Widgets; the pair of every holdEvery-th pair carries testFinalizer
// (none if holdEvery is 0). It returns how many of each kind hold it.
func populate(t testing.TB, c *client.Client, ns string, n, holdEvery int) (heldConfigMaps, heldWidgets int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		var fins []string
		if holdEvery > 0 && (i/2)%holdEvery == 0 {
			fins = []string{testFinalizer}
		}
		name := fmt.Sprintf("obj-%04d", i)
		var obj client.Object = newConfigMap(ns, name, fins...)
		if i%2 == 1 {
			obj = newWidget(ns, name, fins...)
		}
		must(t, c.Create(ctx, obj))
		if len(fins) > 0 && i%2 == 1 {
			heldWidgets++
		} else if len(fins) > 0 {
			heldConfigMaps++
		}
	}
	return heldConfigMaps, heldWidgets
}

// release removes testFinalizer from every object in ns that has it.
func release(t testing.TB, c *client.Client, ns string) {
	t.Helper()
	ctx := context.Background()
	for _, gvk := range []schema.GroupVersionKind{corev1.SchemeGroupVersion.WithKind("ConfigMap"), widgetGVK} {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := c.List(ctx, list, client.InNamespace(ns))
		if meta.IsNoMatchError(err) {
			continue
		}
		must(t, err)
		for _, o := range list.Items {
			if len(o.Finalizers) == 0 {
				continue
			}
			p := partialOf(gvk, ns, o.Name)
			must(t, c.Patch(ctx, p, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
		}
	}
}

func listMeta(t testing.TB, c *client.Client, ns string, gvk schema.GroupVersionKind) []metav1.PartialObjectMetadata {
	t.Helper()
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	must(t, c.List(context.Background(), list, client.InNamespace(ns)))
	return list.Items
}

func partialOf(gvk schema.GroupVersionKind, ns, name string) *metav1.PartialObjectMetadata {
	p := &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(gvk)
	p.Namespace, p.Name = ns, name
	return p
}

// waitGone waits until namespace name no longer exists.
func waitGone(t testing.TB, c *client.Client, name string) {
	t.Helper()
	envtest.Eventually(t, "namespace "+name+" to be gone", func() error {
		err := c.Get(context.Background(), types.NamespacedName{Name: name}, &corev1.Namespace{})
		if client.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return errors.New("still there")
	})
}

package crdcleanup_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/crdcleanup"
)

// testFinalizer holds test objects until the test lets them go.
const testFinalizer = "test.setpoint.dev/hold"

// startServer starts a test server without the built-in controllers,
// so whatever cleanup a test sees, the controller under test did.
func startServer(t testing.TB) *envtest.Env {
	t.Helper()
	return envtest.Start(t, envtest.WithoutControllers())
}

// runManager runs a manager with the controller until the test ends,
// then checks it stopped cleanly and logged no error.
func runManager(t testing.TB, env *envtest.Env) {
	t.Helper()
	env.StartManager(t, func(m *manager.Manager) error {
		return crdcleanup.Setup(m, crdcleanup.Options{})
	}, envtest.WithLogs(&envtest.Logs{}, slog.LevelInfo))
}

func newClient(t testing.TB, cfg *rest.Config) *client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Logger: slog.New(slog.DiscardHandler)})
	must(t, err)
	return c
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newCRD defines kind in group test.setpoint.dev: any content kept.
func newCRD(plural, kind string, scope apiextensionsv1.ResourceScope) *apiextensionsv1.CustomResourceDefinition {
	keep := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".test.setpoint.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "test.setpoint.dev",
			Scope: scope,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: plural, Singular: strings.ToLower(kind), Kind: kind, ListKind: kind + "List",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &keep,
				}},
			}},
		},
	}
}

func newObject(gvk schema.GroupVersionKind, ns, name string, finalizers ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": int64(1)}}}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetFinalizers(finalizers)
	return u
}

// listAllMeta lists every object of kind gvk.
func listAllMeta(c *client.Client, gvk schema.GroupVersionKind) ([]metav1.PartialObjectMetadata, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	err := c.List(context.Background(), list)
	return list.Items, err
}

func terminatingCondition(crd *apiextensionsv1.CustomResourceDefinition) apiextensionsv1.CustomResourceDefinitionCondition {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Terminating {
			return c
		}
	}
	return apiextensionsv1.CustomResourceDefinitionCondition{}
}

func wantCondition(got apiextensionsv1.CustomResourceDefinitionCondition, status apiextensionsv1.ConditionStatus, reason, msg string) error {
	if got.Status != status || got.Reason != reason || got.Message != msg {
		return fmt.Errorf("Terminating: %s %s %q, want %s %s %q", got.Status, got.Reason, got.Message, status, reason, msg)
	}
	return nil
}

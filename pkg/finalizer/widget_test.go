package finalizer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// Widget is a custom resource with a Go type, as a user's operator has.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
	Size int `json:"size,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (l *WidgetList) DeepCopyObject() runtime.Object {
	out := *l
	out.Items = make([]Widget, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*Widget)
	}
	return &out
}

var widgetGV = schema.GroupVersion{Group: "test.setpoint.dev", Version: "v1"}

// testClient reaches the package's shared server, where the Widget CRD
// is served. Tests name their objects with generateName, so they can
// share it and run with -count.
var testClient *client.Client

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	ctx := context.Background()
	srv, stop, err := apiservertest.Run(ctx, apiservertest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the API server:", err)
		return 1
	}
	defer stop()
	scheme := client.NewScheme()
	scheme.AddKnownTypes(widgetGV, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(scheme, widgetGV)
	testClient, err = client.New(srv.Config, client.Options{Scheme: scheme, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 1
	}
	// The server answers a CRD write once the kind is served.
	if err := testClient.Create(ctx, widgetCRD()); err != nil {
		fmt.Fprintln(os.Stderr, "creating the Widget CRD:", err)
		return 1
	}
	return m.Run()
}

func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	keep := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + widgetGV.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widgetGV.Group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: widgetGV.Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &keep,
				}},
			}},
		},
	}
}

// createWidget creates a widget with a generated name and the given
// finalizers.
func createWidget(t *testing.T, finalizers ...string) *Widget {
	t.Helper()
	w := &Widget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "w-", Finalizers: finalizers},
		Spec:       WidgetSpec{Size: 1},
	}
	if err := testClient.Create(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	return w
}

// get reads w's current state from the server; nil when it is gone.
func get(t *testing.T, w *Widget) *Widget {
	t.Helper()
	got := &Widget{}
	err := testClient.Get(t.Context(), types.NamespacedName{Namespace: w.Namespace, Name: w.Name}, got)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func deleteWidget(t *testing.T, w *Widget) {
	t.Helper()
	if err := testClient.Delete(t.Context(), w); err != nil {
		t.Fatal(err)
	}
}

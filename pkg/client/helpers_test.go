package client_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// modes are the two ways built-in kinds travel.
var modes = []struct {
	name string
	opts client.Options
	// wantType is the media type answers for built-in kinds come in.
	wantType string
}{
	{"json", client.Options{DisableProtobuf: true}, "application/json"},
	{"protobuf", client.Options{}, "application/vnd.kubernetes.protobuf"},
}

// exchange is one request the recorder saw.
type exchange struct {
	method, path string
	query        string
	requestType  string
	accept       string
	responseType string
	responseCode int
}

// recorder wraps a transport and remembers what went over it, so tests
// can check the encoding actually used.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	r.mu.Lock()
	r.seen = append(r.seen, exchange{
		method: req.Method, path: req.URL.Path, query: req.URL.RawQuery,
		requestType: req.Header.Get("Content-Type"), accept: req.Header.Get("Accept"),
		responseType: resp.Header.Get("Content-Type"), responseCode: resp.StatusCode,
	})
	r.mu.Unlock()
	return resp, nil
}

func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// newClient returns a client for srv whose traffic is recorded.
func newClient(t testing.TB, srv *apiservertest.Server, opts client.Options) (*client.Client, *recorder) {
	t.Helper()
	hc, err := rest.HTTPClientFor(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{next: hc.Transport}
	hc.Transport = rec
	opts.HTTPClient = hc
	c, err := client.New(srv.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

// start starts a server and a client for it.
func start(t testing.TB, opts client.Options) (*client.Client, *apiservertest.Server) {
	t.Helper()
	srv := apiservertest.Start(t)
	c, _ := newClient(t, srv, opts)
	return c, srv
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func createNamespace(t testing.TB, c *client.Client, name string) {
	t.Helper()
	if err := c.Create(ctx(t), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
}

func configMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

var widgetGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

// widgetCRD is a namespaced custom resource with a status subresource
// and a schema that keeps any field.
func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	keep := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &keep,
				}},
			}},
		},
	}
}

func widget(ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(widgetGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func widgetList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(widgetGVK.GroupVersion().WithKind("WidgetList"))
	return l
}

// names returns the names of objects, in order.
func names[T metav1.Object](objs []T) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	return out
}

func ptrs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

func nameOf(o metav1.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
}

// staticMapper knows ConfigMaps only, for servers without discovery.
func staticMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	return m
}

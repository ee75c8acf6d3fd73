package fsm_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/fsm"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// Cache is a custom resource whose status holds conditions, as an
// operator's API type does.
type Cache struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		SizeMB int `json:"sizeMB"`
	} `json:"spec"`
	Status struct {
		Conditions []metav1.Condition `json:"conditions,omitempty"`
	} `json:"status"`
}

func (c *Cache) GetConditions() []metav1.Condition   { return c.Status.Conditions }
func (c *Cache) SetConditions(cs []metav1.Condition) { c.Status.Conditions = cs }

func (c *Cache) DeepCopyObject() runtime.Object {
	out := *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Conditions = append([]metav1.Condition(nil), c.Status.Conditions...)
	return &out
}

// A Machine with two states: Validated checks the spec, Provisioned
// (here a stand-in) would create what the spec asks for. One reconcile
// walks them and writes a condition for each, and Ready from both.
func ExampleMachine() {
	ctx := context.Background()
	srv, stop, err := apiservertest.Run(ctx, apiservertest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	c := newClient(ctx, srv.Config)

	m, err := fsm.New(fsm.Config[*Cache]{
		Client: c,
		States: []fsm.State[*Cache]{{
			Name: "Validated",
			Next: []string{"Provisioned"},
			Run: func(ctx context.Context, obj *Cache) fsm.Outcome {
				if obj.Spec.SizeMB <= 0 {
					return fsm.Fail(reconcile.TerminalError(errors.New("sizeMB must be positive")), "InvalidSize")
				}
				return fsm.Next("Provisioned", "SizeValid", "")
			},
		}, {
			Name: "Provisioned",
			Run: func(ctx context.Context, obj *Cache) fsm.Outcome {
				return fsm.Done("Provisioned", fmt.Sprintf("%d MB", obj.Spec.SizeMB))
			},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Transitions())

	obj := &Cache{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "small"}}
	obj.Spec.SizeMB = 64
	if err := c.Create(ctx, obj); err != nil {
		log.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "default", Name: "small"}
	if _, err := m.Reconcile(ctx, reconcile.Request{NamespacedName: key}); err != nil {
		log.Fatal(err)
	}
	if err := c.Get(ctx, key, obj); err != nil {
		log.Fatal(err)
	}
	for _, cond := range obj.Status.Conditions {
		fmt.Printf("%s=%s %s %q\n", cond.Type, cond.Status, cond.Reason, cond.Message)
	}
	// Output:
	// [{Validated Provisioned}]
	// Validated=True SizeValid ""
	// Provisioned=True Provisioned "64 MB"
	// Ready=True Ready "every state's condition is True"
}

// newClient installs the Cache CRD and returns a client that knows its
// Go type.
func newClient(ctx context.Context, cfg *rest.Config) *client.Client {
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	scheme := client.NewScheme()
	scheme.AddKnownTypes(gv, &Cache{})
	metav1.AddToGroupVersion(scheme, gv)
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		log.Fatal(err)
	}
	keep := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "caches.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: gv.Group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "caches", Singular: "cache", Kind: "Cache", ListKind: "CacheList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: gv.Version, Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &keep,
				}},
			}},
		},
	}
	if err := c.Create(ctx, crd); err != nil {
		log.Fatal(err)
	}
	return c
}

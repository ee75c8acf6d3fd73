package envtest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/envtest"
)

func TestReadCRDs(t *testing.T) {
	tests := []struct {
		dir       string
		wantNames []string
		wantErr   string // a part of the error
		wantIs    error
	}{
		{dir: "testdata/crds", wantNames: []string{"gizmos.example.com", "widgets.example.com", "gadgets.example.com"}},
		{dir: "testdata/badfield", wantErr: `testdata/badfield/crd.yaml: document 1: error unmarshaling JSON: while decoding JSON: json: unknown field "versoins"`},
		{dir: "testdata/badyaml", wantErr: "testdata/badyaml/crd.yaml: document 1: "},
		{dir: "testdata/empty", wantErr: "testdata/empty: no CustomResourceDefinition found", wantIs: envtest.ErrNoCRDs},
		{dir: "testdata/missing", wantErr: "reading CRDs: open testdata/missing: no such file or directory", wantIs: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			crds, err := envtest.ReadCRDs(tt.dir)
			var names []string
			for _, c := range crds {
				names = append(names, c.Name)
			}
			if !slices.Equal(names, tt.wantNames) {
				t.Errorf("names = %v, want %v", names, tt.wantNames)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("err = %v, want errors.Is %v", err, tt.wantIs)
			}
		})
	}
}

// Every CRD of the folder, from YAML (several documents) and JSON, is
// served once Start returns: lists of each answer at once.
func TestStartWithCRDs(t *testing.T) {
	env := envtest.Start(t, envtest.WithCRDs("testdata/crds"), envtest.WithoutControllers())
	for _, kind := range []string{"WidgetList", "GadgetList", "GizmoList"} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: kind})
		if err := env.Client().List(t.Context(), list); err != nil {
			t.Errorf("listing %s: %v", kind, err)
		}
	}
}

// A folder that cannot be installed fails Start with an error naming
// the file, or the CRD the server refused.
func TestStartWithBadCRDs(t *testing.T) {
	refused := t.TempDir()
	// No version is the storage version: the server refuses it.
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Thing, plural: things}
  versions:
    - name: v1
      served: true
      storage: false
      schema: {openAPIV3Schema: {type: object}}
`
	if err := os.WriteFile(filepath.Join(refused, "crd.yaml"), []byte(crd), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir     string
		wantMsg string
	}{
		{dir: "testdata/badfield", wantMsg: `envtest: testdata/badfield/crd.yaml: document 1: error unmarshaling JSON: while decoding JSON: json: unknown field "versoins"`},
		{dir: refused, wantMsg: "envtest: creating CRD things.example.com: "},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.dir), func(t *testing.T) {
			f := runFake(func(ft testing.TB) {
				envtest.Start(ft, envtest.WithCRDs(tt.dir), envtest.WithoutControllers())
			})
			if !f.Failed() || !strings.Contains(f.String(), tt.wantMsg) {
				t.Errorf("failed = %v, messages:\n%s\nwant a failure containing %q", f.Failed(), f, tt.wantMsg)
			}
		})
	}
}

// New, outside a test, returns the error and leaves nothing running.
func TestNewError(t *testing.T) {
	_, err := envtest.New(context.Background(), envtest.WithCRDs("testdata/empty"))
	if !errors.Is(err, envtest.ErrNoCRDs) {
		t.Errorf("err = %v, want ErrNoCRDs", err)
	}
}

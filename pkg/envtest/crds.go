package envtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// crdReadyTimeout bounds the wait for an installed CRD to be served.
const crdReadyTimeout = 30 * time.Second

// ErrNoCRDs is returned when a folder given to WithCRDs holds no CRD:
// most often a wrong relative path.
var ErrNoCRDs = errors.New("no CustomResourceDefinition found")

// InstallCRDs creates every CRD in dir, as WithCRDs describes, and waits
// until each is established and served.
func (e *Env) InstallCRDs(ctx context.Context, dir string) error {
	crds, err := ReadCRDs(dir)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if err := e.client.Create(ctx, crd); err != nil {
			return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
		}
	}
	for _, crd := range crds {
		if err := e.waitServed(ctx, crd); err != nil {
			return err
		}
	}
	return nil
}

// ReadCRDs decodes the CRDs in dir's .yaml, .yml and .json files, in
// file name order. An unreadable file or a document that is not a valid
// CRD (unknown fields included) is an error naming the file and the
// document; documents of other kinds are skipped.
func ReadCRDs(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading CRDs: %w", err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, ent := range entries {
		ext := strings.ToLower(filepath.Ext(ent.Name()))
		if ent.IsDir() || !slices.Contains([]string{".yaml", ".yml", ".json"}, ext) {
			continue
		}
		path := filepath.Join(dir, ent.Name())
		got, err := readCRDFile(path)
		if err != nil {
			return nil, err
		}
		crds = append(crds, got...)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoCRDs)
	}
	return crds, nil
}

// readCRDFile decodes the CRDs among path's documents.
func readCRDFile(path string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading CRDs: %w", err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var crds []*apiextensionsv1.CustomResourceDefinition
	for doc := 1; ; doc++ {
		var raw map[string]any
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return crds, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, doc, err)
		}
		if raw == nil {
			continue // an empty document, as "---" at the end leaves
		}
		u := unstructured.Unstructured{Object: raw}
		if u.GroupVersionKind().GroupKind() != (schema.GroupKind{Group: apiextensionsv1.GroupName, Kind: "CustomResourceDefinition"}) {
			continue
		}
		if v := u.GetAPIVersion(); v != apiextensionsv1.SchemeGroupVersion.String() {
			return nil, fmt.Errorf("%s: document %d: CRD %q is %s; only %s is served", path, doc, u.GetName(), v, apiextensionsv1.SchemeGroupVersion)
		}
		js, err := u.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, doc, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(js, crd); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, doc, err)
		}
		crds = append(crds, crd)
	}
}

// waitServed waits until crd is Established and a list of each served
// version answers: discovery and the client's mapper know it.
func (e *Env) waitServed(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	ctx, cancel := context.WithTimeout(ctx, crdReadyTimeout)
	defer cancel()
	check := func() error {
		got := &apiextensionsv1.CustomResourceDefinition{}
		if err := e.client.Get(ctx, types.NamespacedName{Name: crd.Name}, got); err != nil {
			return err
		}
		if !established(got) {
			return errors.New("not Established yet")
		}
		for _, v := range got.Spec.Versions {
			if !v.Served {
				continue
			}
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(schema.GroupVersionKind{Group: got.Spec.Group, Version: v.Name, Kind: got.Spec.Names.ListKind})
			if err := e.client.List(ctx, list); err != nil {
				return fmt.Errorf("listing %s/%s: %w", got.Spec.Group, v.Name, err)
			}
		}
		return nil
	}
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s not served after %v: %w", crd.Name, crdReadyTimeout, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

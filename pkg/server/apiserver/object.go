package apiserver

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

func unmarshalJSON(b []byte, v any) error {
	return sigsjson.UnmarshalCaseSensitivePreserveInts(b, v)
}

// readBody reads a request body of at most maxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, apierror.RequestTooLarge("limit is %d", maxBodyBytes)
	}
	if err != nil {
		return nil, apierror.BadRequest("reading the request body: %v", err)
	}
	return b, nil
}

// decodeObject reads a create or update body into unstructured content of
// the request's kind. A missing apiVersion or kind is taken from the URL,
// as kube-apiserver does; a different one is a 400.
func (s *Server) decodeObject(w http.ResponseWriter, r *http.Request, req *request) (*unstructured.Unstructured, []string, error) {
	bf, err := requestFormat(r.Header.Get("Content-Type"), req.res)
	if err != nil {
		return nil, nil, err
	}
	body, err := readBody(w, r)
	if err != nil {
		return nil, nil, err
	}
	fv, err := parseFieldValidation(req)
	if err != nil {
		return nil, nil, err
	}
	dup := yamlDuplicates(bf, body, fv)
	if body, err = jsonBody(bf, body, req.res.GroupVersionKind()); err != nil {
		return nil, nil, err
	}
	obj, warnings, err := req.res.Decode(body, fv)
	if warnings, err = strictBody(req.res, dup, fv, warnings, err); err != nil {
		return nil, nil, apierror.From(err, req.res.GroupResource(), req.name)
	}
	u := &unstructured.Unstructured{Object: obj}
	if err := checkTypeMeta(u, req.res); err != nil {
		return nil, nil, err
	}
	return u, warnings, nil
}

// jsonBody turns a YAML or protobuf request body into JSON; protobuf
// must be of kind want.
func jsonBody(bf bodyFormat, body []byte, want schema.GroupVersionKind) ([]byte, error) {
	switch bf {
	case bodyYAML:
		js, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, apierror.BadRequest("the body is not valid YAML: %v", err)
		}
		return js, nil
	case bodyProtobuf:
		gvk, js, err := protobuf.Default().DecodeToJSON(body)
		if err != nil {
			return nil, apierror.BadRequest("the body is not a valid protobuf object: %v", err)
		}
		if gvk != want {
			return nil, apierror.BadRequest("the body is a %s, not a %s", gvk, want)
		}
		return js, nil
	}
	return body, nil
}

func checkTypeMeta(u *unstructured.Unstructured, res *registry.Resource) error {
	switch av := u.GetAPIVersion(); av {
	case "":
		u.SetAPIVersion(res.APIVersion())
	case res.APIVersion():
	default:
		gv, err := schema.ParseGroupVersion(av)
		if err != nil || gv.Group != res.Group {
			return apierror.BadRequest("the API version in the data (%s) does not match the expected API version (%s)", av, res.APIVersion())
		}
		// Another served version of the same resource: objects are not
		// converted, so serve it under the URL's version.
		u.SetAPIVersion(res.APIVersion())
	}
	switch k := u.GetKind(); k {
	case "":
		u.SetKind(res.Kind)
	case res.Kind:
	default:
		return apierror.BadRequest("the kind in the data (%s) does not match the expected kind (%s)", k, res.Kind)
	}
	if _, ok := u.Object["metadata"]; ok {
		if _, isMap := u.Object["metadata"].(map[string]any); !isMap {
			return apierror.BadRequest("metadata must be an object")
		}
	}
	return nil
}

// validateMeta applies the generic metadata rules: name, namespace,
// labels, annotations, finalizers and owner references.
func validateMeta(u *unstructured.Unstructured, res *registry.Resource) field.ErrorList {
	nameFn := apivalidation.NameIsDNSSubdomain
	if res.NameIsLabel {
		nameFn = apivalidation.NameIsDNSLabel
	}
	return apivalidation.ValidateObjectMetaAccessor(u, res.Namespaced, nameFn, field.NewPath("metadata"))
}

// storedBytes encodes an object for storage: without resourceVersion,
// which is the storage revision and is added when served.
func storedBytes(u *unstructured.Unstructured) ([]byte, error) {
	meta, _ := u.Object["metadata"].(map[string]any)
	rv, had := meta["resourceVersion"]
	delete(meta, "resourceVersion")
	b, err := json.Marshal(u.Object)
	if had {
		meta["resourceVersion"] = rv
	}
	return b, err
}

// servedBytes encodes an object as served at revision rev.
func servedBytes(u *unstructured.Unstructured, rev int64) ([]byte, error) {
	u.SetResourceVersion(strconv.FormatInt(rev, 10))
	return json.Marshal(u.Object)
}

// decoder builds the watch cache's objects for a resource.
func (s *Server) decoder(res *registry.Resource) watchcache.DecodeFunc {
	return func(key string, value []byte, rev int64) (*watchcache.Object, error) {
		var obj map[string]any
		if err := unmarshalJSON(value, &obj); err != nil {
			return nil, err
		}
		res.NormalizeStored(obj)
		u := &unstructured.Unstructured{Object: obj}
		b, err := servedBytes(u, rev)
		if err != nil {
			return nil, err
		}
		return &watchcache.Object{
			Key: key, Namespace: u.GetNamespace(), Name: u.GetName(), Revision: rev, APIVersion: u.GetAPIVersion(),
			Labels: u.GetLabels(), Fields: res.FieldSet(obj), JSON: b,
		}, nil
	}
}

// parseObject reads served or stored JSON back into unstructured form.
func parseObject(b []byte) (*unstructured.Unstructured, error) {
	var obj map[string]any
	if err := unmarshalJSON(b, &obj); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// parseFieldValidation reads fieldValidation; kube-apiserver's default is
// Warn.
func parseFieldValidation(req *request) (registry.FieldValidation, error) {
	fv := registry.FieldValidation(req.query.Get("fieldValidation"))
	switch fv {
	case "":
		return registry.FieldWarn, nil
	case registry.FieldIgnore, registry.FieldWarn, registry.FieldStrict:
		return fv, nil
	}
	return "", apierror.BadRequest("fieldValidation must be one of Ignore, Warn or Strict, not %q", fv)
}

package params

import (
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// maxBodyBytes is kube-apiserver's --max-request-bytes default
// (MaxRequestBodyBytes).
const maxBodyBytes = 3 << 20

// UnmarshalJSON decodes request JSON as kube-apiserver does: keys are
// case-sensitive and integers stay int64.
func UnmarshalJSON(b []byte, v any) error {
	return sigsjson.UnmarshalCaseSensitivePreserveInts(b, v)
}

// ReadBody reads a request body of at most maxBodyBytes.
func ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
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

// DecodeObject reads a create or update body into unstructured content of
// res's kind (name is the object the URL names, for errors). A missing apiVersion or kind is taken from the URL,
// as kube-apiserver does; a different one is a 400.
func DecodeObject(w http.ResponseWriter, r *http.Request, res *registry.Resource, name string, q url.Values) (*unstructured.Unstructured, []string, error) {
	bf, err := response.RequestFormat(r.Header.Get("Content-Type"), res)
	if err != nil {
		return nil, nil, err
	}
	body, err := ReadBody(w, r)
	if err != nil {
		return nil, nil, err
	}
	fv, err := FieldValidation(q)
	if err != nil {
		return nil, nil, err
	}
	var obj map[string]any
	var warnings []string
	if bf == response.BodyProtobuf && res.Typed {
		// Straight from the Go type: no JSON in between.
		if obj, err = typedBody(body, res); err != nil {
			return nil, nil, apierror.From(err, res.GroupResource(), name)
		}
	} else {
		dup := yamlDuplicates(bf, body, fv)
		if body, err = JSONBody(bf, body, res.GroupVersionKind()); err != nil {
			return nil, nil, err
		}
		obj, warnings, err = res.Decode(body, fv)
		if warnings, err = strictBody(res, dup, fv, warnings, err); err != nil {
			return nil, nil, apierror.From(err, res.GroupResource(), name)
		}
	}
	u := &unstructured.Unstructured{Object: obj}
	if err := generic.CheckTypeMeta(u, res); err != nil {
		return nil, nil, err
	}
	return u, warnings, nil
}

// typedBody decodes a protobuf body of res's kind into unstructured
// content.
func typedBody(body []byte, res *registry.Resource) (map[string]any, error) {
	gvk, typed, err := protobuf.Default().Decode(body)
	if err != nil {
		return nil, apierror.BadRequest("the body is not a valid protobuf object: %v", err)
	}
	if want := res.GroupVersionKind(); gvk != want {
		return nil, apierror.BadRequest("the body is a %s, not a %s", gvk, want)
	}
	return res.DecodeTyped(typed)
}

// JSONBody turns a YAML or protobuf request body into JSON; protobuf
// must be of kind want.
func JSONBody(bf response.BodyFormat, body []byte, want schema.GroupVersionKind) ([]byte, error) {
	switch bf {
	case response.BodyYAML:
		js, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, apierror.BadRequest("the body is not valid YAML: %v", err)
		}
		return js, nil
	case response.BodyProtobuf:
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

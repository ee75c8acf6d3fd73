package apiserver

import (
	"errors"
	"io"
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
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
	if err := generic.CheckTypeMeta(u, req.res); err != nil {
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

package params

import (
	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// yamlErrorPrefixes begin the YAML library's strict decoding errors; a
// warning names each problem without them, as kube-apiserver's do.
var yamlErrorPrefixes = []string{
	"error converting YAML to JSON: yaml: unmarshal errors:\n",
	"yaml: unmarshal errors:\n",
}

// ApplyDuplicateKeys checks an apply patch for keys set twice in one
// map, which a plain YAML decode lets the last one win. As in
// kube-apiserver, fieldValidation=Strict refuses the patch with a 400
// (returned as err, for the caller to answer once the apply itself has
// succeeded), Warn warns for each key, Ignore does neither.
func ApplyDuplicateKeys(body []byte, fv registry.FieldValidation) (warnings []string, err error) {
	if fv == registry.FieldIgnore {
		return nil, nil
	}
	derr := utilyaml.UnmarshalStrict(body, &map[string]any{})
	if derr == nil {
		return nil, nil
	}
	if fv == registry.FieldStrict {
		return nil, apierror.BadRequest("error strict decoding YAML: %v", derr)
	}
	return yamlWarnings(derr.Error()), nil
}

package params

import (
	"errors"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"

	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// yamlDuplicates returns the YAML library's account of keys set twice
// in a create or update body sent as YAML ("" for none, and for other
// formats): converting YAML to JSON keeps the last value silently, so
// kube-apiserver checks the original body under Warn and Strict.
func yamlDuplicates(bf response.BodyFormat, body []byte, fv registry.FieldValidation) string {
	if bf != response.BodyYAML || fv == registry.FieldIgnore {
		return ""
	}
	if _, err := yaml.YAMLToJSONStrict(body); err != nil {
		return err.Error()
	}
	return ""
}

// strictBody folds a YAML body's duplicate keys into what decoding it
// found, as kube-apiserver does: under Strict they come first among the
// strict decoding errors, under Warn each is a warning. A strict error
// is worded as kube-apiserver's create and update answer it.
func strictBody(res *registry.Resource, dup string, fv registry.FieldValidation, warnings []string, err error) ([]string, error) {
	var strict *registry.StrictError
	switch {
	case err != nil && !errors.As(err, &strict):
		return nil, err
	case dup == "":
	case fv == registry.FieldStrict:
		problems := []string{dup}
		if strict != nil {
			problems = append(problems, strict.Problems...)
		}
		strict = &registry.StrictError{Problems: problems}
	default:
		warnings = append(yamlWarnings(dup), warnings...)
	}
	if strict != nil {
		return nil, apierror.BadRequest("%s in version %q cannot be handled as a %s: %s", res.Kind, res.Version, res.Kind, strict.Error())
	}
	return warnings, nil
}

// yamlWarnings splits the YAML library's error into one warning per
// problem, without its heading.
func yamlWarnings(msg string) []string {
	for _, p := range yamlErrorPrefixes {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			var out []string
			for _, line := range strings.Split(rest, "\n") {
				out = append(out, strings.TrimSpace(line))
			}
			return out
		}
	}
	return []string{msg}
}

package registry

import (
	"encoding/base64"
	"encoding/json"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// secretErrors are kube's rules for a Secret as written: its keys and
// size, and the keys its type requires.
func secretErrors(obj map[string]any) field.ErrorList {
	errs := append(dataKeyErrors(obj, "data"), secretDataSize(obj)...)
	return append(errs, secretTypeErrors(obj)...)
}

// secretTypeErrors checks what a Secret's type promises consumers: a
// service account token names its service account, docker configs hold
// JSON under their key, basic auth has a username or password, SSH auth
// a private key, TLS a certificate and key. Other types hold anything.
func secretTypeErrors(obj map[string]any) field.ErrorList {
	data, _ := obj["data"].(map[string]any)
	dataPath := field.NewPath("data")
	has := func(k string) bool { _, ok := data[k]; return ok }
	var errs field.ErrorList
	switch corev1.SecretType(str(obj["type"])) {
	case corev1.SecretTypeServiceAccountToken:
		annotations, _ := nestedMap(obj, false, "metadata")["annotations"].(map[string]any)
		if str(annotations[corev1.ServiceAccountNameKey]) == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		errs = append(errs, secretJSONErrors(data, corev1.DockerConfigKey)...)
	case corev1.SecretTypeDockerConfigJson:
		errs = append(errs, secretJSONErrors(data, corev1.DockerConfigJsonKey)...)
	case corev1.SecretTypeBasicAuth:
		if !has(corev1.BasicAuthUsernameKey) && !has(corev1.BasicAuthPasswordKey) {
			errs = append(errs, field.Required(dataPath.Key(corev1.BasicAuthUsernameKey), ""),
				field.Required(dataPath.Key(corev1.BasicAuthPasswordKey), ""))
		}
	case corev1.SecretTypeSSHAuth:
		if len(secretValue(data, corev1.SSHAuthPrivateKey)) == 0 {
			errs = append(errs, field.Required(dataPath.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		for _, k := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
			if !has(k) {
				errs = append(errs, field.Required(dataPath.Key(k), ""))
			}
		}
	}
	return errs
}

// secretJSONErrors requires data[key] to be a JSON object, without
// echoing its contents in the error.
func secretJSONErrors(data map[string]any, key string) field.ErrorList {
	path := field.NewPath("data").Key(key)
	if _, ok := data[key]; !ok {
		return field.ErrorList{field.Required(path, "")}
	}
	if err := json.Unmarshal(secretValue(data, key), &map[string]any{}); err != nil {
		return field.ErrorList{field.Invalid(path, "<secret contents redacted>", err.Error())}
	}
	return nil
}

// secretValue is data[key] decoded; the decoder has already refused
// values that are not base64.
func secretValue(data map[string]any, key string) []byte {
	b, _ := base64.StdEncoding.DecodeString(str(data[key]))
	return b
}

// immutableDataErrors holds a ConfigMap or Secret that was stored with
// immutable: true to it: it stays immutable and its data fields (named
// in fields) stay as they are.
func immutableDataErrors(obj, old map[string]any, fields ...string) field.ErrorList {
	if was, _ := old["immutable"].(bool); !was {
		return nil
	}
	const msg = "field is immutable when `immutable` is set"
	var errs field.ErrorList
	if now, _ := obj["immutable"].(bool); !now {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), msg))
	}
	for _, f := range fields {
		if !reflect.DeepEqual(obj[f], old[f]) {
			errs = append(errs, field.Forbidden(field.NewPath(f), msg))
		}
	}
	return errs
}

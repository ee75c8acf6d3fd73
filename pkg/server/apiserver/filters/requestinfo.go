package filters

import (
	"net/http"
	"net/url"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// Attributes reads what r asks to do from its URL and method alone, as
// kube-apiserver's RequestInfoFactory does before routing: authorization
// runs before the server knows whether the resource exists, so a caller
// without rights learns nothing from a 404.
func Attributes(r *http.Request, u authenticationv1.UserInfo) authorizer.Attributes {
	a := authorizer.Attributes{User: u, Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := splitPath(r.URL.Path)
	if len(parts) < 3 || (parts[0] != "api" && parts[0] != "apis") {
		return a
	}
	grouped := parts[0] == "apis"
	parts = parts[1:]
	if grouped {
		if len(parts) < 3 {
			return a
		}
		a.APIGroup, parts = parts[0], parts[1:]
	}
	a.ResourceRequest = true
	a.APIVersion, parts = parts[0], parts[1:]

	if parts[0] == "watch" || parts[0] == "proxy" {
		if len(parts) < 2 {
			// kube cannot tell the kind either; it authorizes what it
			// has, and routing answers 404.
			return a
		}
		a.Verb, parts = parts[0], parts[1:]
	} else {
		a.Verb = methodVerb(r.Method)
	}

	if parts[0] == "namespaces" {
		if len(parts) > 1 {
			a.Namespace = parts[1]
			// A namespace's own status and finalize are subresources
			// of the namespace, not resources inside it.
			if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
				parts = parts[2:]
			}
		}
	}
	switch {
	case len(parts) >= 3 && a.Verb != "proxy":
		a.Subresource = parts[2]
		fallthrough
	case len(parts) >= 2:
		a.Name = parts[1]
		fallthrough
	default:
		a.Resource = parts[0]
	}

	if a.Name == "" && a.Verb == "get" {
		q := r.URL.Query()
		a.Verb = "list"
		if isWatch(q) {
			a.Verb = "watch"
		}
		// A list or watch of one object by name is authorized as that
		// object, so resourceNames rules can allow it (informers on
		// a single object, kubectl get -w NAME).
		if name, ok := exactName(q); ok {
			a.Name = name
		}
	}
	if a.Name == "" && a.Verb == "delete" {
		a.Verb = "deletecollection"
	}
	return a
}

func methodVerb(method string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return ""
}

// isWatch reads the watch parameter as kube's parameter codec does: any
// value but false and 0, in any case, asks for a watch.
func isWatch(q url.Values) bool {
	v, ok := q["watch"]
	if !ok || len(v) == 0 {
		return false
	}
	switch strings.ToLower(v[0]) {
	case "false", "0":
		return false
	}
	return true
}

// exactName returns the name a field selector pins metadata.name to, when
// it is a valid path segment.
func exactName(q url.Values) (string, bool) {
	s := q.Get("fieldSelector")
	if s == "" {
		return "", false
	}
	sel, err := fields.ParseSelector(s)
	if err != nil {
		return "", false
	}
	name, ok := sel.RequiresExactMatch("metadata.name")
	if !ok || len(content.IsPathSegmentName(name)) > 0 {
		return "", false
	}
	return name, true
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

package openapi

import (
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// route is one URL path of a group-version and the operations on it, as
// kube-apiserver publishes them; the v2 and v3 encoders render it.
type route struct {
	path string
	// params are path-level parameters, by name in params.
	params []string
	ops    []operation
}

type operation struct {
	method, id, description, action string
	tag                             string
	// gvk is the kind the operation acts on; nil for discovery.
	gvk *schema.GroupVersionKind
	// query parameters by name in params; inline ones are spelled out
	// in the operation rather than referenced (in v3 documents).
	query  []string
	inline bool
	// body is the definition of the request body, "" for none.
	body         string
	bodyOptional bool
	consumes     []string
	produces     []string
	responses    []response
}

type response struct {
	code        string
	description string
	def         string
}

const (
	statusDef = meta + "Status"
	patchDef  = meta + "Patch"
	deleteDef = meta + "DeleteOptions"
	scaleDef  = "io.k8s.api.autoscaling.v1.Scale"
	resources = meta + "APIResourceList"
)

var (
	patchTypes      = []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}
	patchTypesSMP   = []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"}
	mediaTypes      = []string{"application/json", "application/yaml"}
	mediaTypesProto = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}
	watchTypes      = []string{"application/json", "application/yaml", "application/json;stream=watch"}
	watchTypesProto = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"}
)

// gvPath is the URL path prefix of a group-version, without the leading
// slash: api/v1 or apis/<group>/<version>. It also keys the v3 index.
func gvPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// routesFor lists the routes of a group-version's resources, discovery
// first, in a fixed order.
func routesFor(gv schema.GroupVersion, rs []Resource) []route {
	group := gv.Group
	if group == "" {
		group = "core"
	}
	group = strings.TrimSuffix(group, ".k8s.io")
	gvID := opID(group, true) + opID(gv.Version, true)
	tag := opID(group, false) + "_" + opID(gv.Version, false)
	prefix := "/" + gvPath(gv)

	routes := []route{{path: prefix + "/", ops: []operation{{
		method: "get", id: "get" + gvID + "APIResources", description: "get available resources",
		tag: tag, produces: mediaTypesProto, responses: []response{{"200", "OK", resources}},
	}}}}
	for i := range rs {
		routes = append(routes, resourceRoutes(&rs[i], prefix, gvID, tag)...)
	}
	return routes
}

func resourceRoutes(r *Resource, prefix, gvID, tag string) []route {
	gvk := r.GVK
	kind, root, list := gvk.Kind, r.Root, r.listRoot()
	produces, listProduces, patch := mediaTypes, watchTypes, patchTypes
	if r.StrategicMerge {
		produces, listProduces, patch = mediaTypesProto, watchTypesProto, patchTypesSMP
	}
	op := func(method, verb, action, sub string, all bool) operation {
		scope := ""
		if r.Namespaced && !all {
			scope = "Namespaced"
		}
		suffix := ""
		if all {
			suffix = "ForAllNamespaces"
		}
		id := verb + gvID + scope + kind + opID(sub, true) + suffix
		if verb == "deletecollection" {
			id = "delete" + gvID + "Collection" + scope + kind
		}
		return operation{method: method, id: id, description: describe(verb, sub, kind), action: action,
			tag: tag, gvk: &gvk, produces: produces}
	}
	listOp := func(all bool) operation {
		o := op("get", "list", "list", "", all)
		o.query, o.produces = listParams, listProduces
		o.responses = []response{{"200", "OK", list}}
		return o
	}

	var routes []route
	collection := prefix + "/" + r.Plural
	var scope []string
	if r.Namespaced {
		routes = append(routes, route{path: collection, params: []string{"pretty"}, ops: []operation{listOp(true)}})
		collection = prefix + "/namespaces/{namespace}/" + r.Plural
		scope = []string{"namespace"}
	}

	create := op("post", "create", "post", "", false)
	create.query, create.body = writeParams, root
	create.responses = []response{{"200", "OK", root}, {"201", "Created", root}, {"202", "Accepted", root}}
	delCollection := op("delete", "deletecollection", "deletecollection", "", false)
	delCollection.query, delCollection.body, delCollection.bodyOptional = deleteCollectionParams, deleteDef, true
	delCollection.responses = []response{{"200", "OK", statusDef}}
	routes = append(routes, route{path: collection, params: append(scope, "pretty"), ops: []operation{listOp(false), create, delCollection}})

	itemParams := append(append([]string{"name"}, scope...), "pretty")
	item := collection + "/{name}"
	read := op("get", "read", "get", "", false)
	read.responses = []response{{"200", "OK", root}}
	del := op("delete", "delete", "delete", "", false)
	del.query, del.body, del.bodyOptional = deleteParams, deleteDef, true
	del.responses = []response{{"200", "OK", statusDef}, {"202", "Accepted", statusDef}}
	routes = append(routes, route{path: item, params: itemParams, ops: []operation{
		read, writeOp(op("put", "replace", "put", "", false), root), patchOp(op("patch", "patch", "patch", "", false), root, patch), del,
	}})

	for _, sub := range []string{"status", "scale"} {
		if !r.hasSubresource(sub) {
			continue
		}
		def := root
		subOp := op
		if sub == "scale" {
			def = scaleDef
			scaleGVK := schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
			subOp = func(method, verb, action, sub string, all bool) operation {
				o := op(method, verb, action, sub, all)
				o.gvk = &scaleGVK
				return o
			}
		}
		get := subOp("get", "read", "get", sub, false)
		get.responses = []response{{"200", "OK", def}}
		routes = append(routes, route{path: item + "/" + sub, params: itemParams, ops: []operation{
			get, writeOp(subOp("put", "replace", "put", sub, false), def), patchOp(subOp("patch", "patch", "patch", sub, false), def, patch),
		}})
	}
	return routes
}

func writeOp(o operation, def string) operation {
	o.query, o.body = writeParams, def
	o.responses = []response{{"200", "OK", def}, {"201", "Created", def}}
	return o
}

func patchOp(o operation, def string, consumes []string) operation {
	o.query, o.inline, o.body, o.consumes = patchParams, true, patchDef, consumes
	o.responses = []response{{"200", "OK", def}, {"201", "Created", def}}
	return o
}

// describe words an operation as kube does ("partially update status of
// the specified Foo").
func describe(verb, sub, kind string) string {
	of := ""
	if sub != "" {
		of = " " + sub + " of"
	}
	switch verb {
	case "list":
		return "list or watch objects of kind " + kind
	case "create":
		return "create " + article(kind) + kind
	case "deletecollection":
		return "delete collection of " + kind
	case "read":
		return "read" + of + " the specified " + kind
	case "replace":
		return "replace" + of + " the specified " + kind
	case "patch":
		return "partially update" + of + " the specified " + kind
	case "delete":
		return "delete " + article(kind) + kind
	}
	return verb + " " + kind
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("AEIOUaeiou", rune(noun[0])) {
		return "an "
	}
	return "a "
}

// opID turns a name into operation ID form: separators dropped, the letter
// after each capitalized (and the first one if upper is set), so
// "stable.example.com" is "StableExampleCom".
func opID(s string, upper bool) string {
	var b strings.Builder
	capital := upper
	for i, r := range s {
		if unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r) {
			if capital {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			capital = false
			continue
		}
		capital = true
	}
	return b.String()
}

package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// This file renders routes and parameters as the JSON of OpenAPI v2 and
// v3 documents. Maps are used where kube's documents have open key sets;
// encoding/json sorts their keys, which keeps documents deterministic.

type gvkExt struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

type ref struct {
	Ref string `json:"$ref"`
}

type v2Param struct {
	Description string `json:"description,omitempty"`
	In          string `json:"in"`
	Name        string `json:"name"`
	Required    bool   `json:"required,omitempty"`
	Schema      *ref   `json:"schema,omitempty"`
	Type        string `json:"type,omitempty"`
	UniqueItems bool   `json:"uniqueItems,omitempty"`
}

type v2Response struct {
	Description string `json:"description"`
	Schema      *ref   `json:"schema,omitempty"`
}

type v2Operation struct {
	Consumes    []string              `json:"consumes,omitempty"`
	Description string                `json:"description"`
	OperationID string                `json:"operationId"`
	Parameters  []any                 `json:"parameters,omitempty"`
	Produces    []string              `json:"produces,omitempty"`
	Responses   map[string]v2Response `json:"responses"`
	Tags        []string              `json:"tags"`
	Action      string                `json:"x-kubernetes-action,omitempty"`
	GVK         *gvkExt               `json:"x-kubernetes-group-version-kind,omitempty"`
}

type v3Schema struct {
	Type        string `json:"type"`
	UniqueItems bool   `json:"uniqueItems,omitempty"`
}

type v3Param struct {
	Description string    `json:"description,omitempty"`
	In          string    `json:"in"`
	Name        string    `json:"name"`
	Required    bool      `json:"required,omitempty"`
	Schema      *v3Schema `json:"schema"`
}

type v3Media struct {
	Schema ref `json:"schema"`
}

type v3Body struct {
	Content  map[string]v3Media `json:"content"`
	Required bool               `json:"required,omitempty"`
}

type v3Response struct {
	Content     map[string]v3Media `json:"content,omitempty"`
	Description string             `json:"description"`
}

type v3Operation struct {
	Description string                `json:"description"`
	OperationID string                `json:"operationId"`
	Parameters  []any                 `json:"parameters,omitempty"`
	RequestBody *v3Body               `json:"requestBody,omitempty"`
	Responses   map[string]v3Response `json:"responses"`
	Tags        []string              `json:"tags"`
	Action      string                `json:"x-kubernetes-action,omitempty"`
	GVK         *gvkExt               `json:"x-kubernetes-group-version-kind,omitempty"`
}

func toGVKExt(gvk *schema.GroupVersionKind) *gvkExt {
	if gvk == nil {
		return nil
	}
	return &gvkExt{Group: gvk.Group, Kind: gvk.Kind, Version: gvk.Version}
}

// Names under which the v2 document defines its shared body parameters.
const (
	v2DeleteBody = "body-deleteOptions"
	v2PatchBody  = "body-patch"
)

func v2ParamOf(p param) v2Param {
	return v2Param{Description: p.description, In: p.in, Name: p.name, Required: p.required, Type: p.typ, UniqueItems: true}
}

func v3ParamOf(p param) v3Param {
	return v3Param{Description: p.description, In: p.in, Name: p.name, Required: p.required, Schema: &v3Schema{Type: p.typ, UniqueItems: true}}
}

// v2Parameters is the v2 document's shared "parameters" object.
func v2Parameters() []byte {
	all := map[string]any{
		v2DeleteBody: v2Param{In: "body", Name: "body", Schema: &ref{refPrefix + deleteDef}},
		v2PatchBody:  v2Param{In: "body", Name: "body", Required: true, Schema: &ref{refPrefix + patchDef}},
	}
	for name, p := range params {
		all[name] = v2ParamOf(p)
	}
	return mustJSON(all)
}

// v3Parameters is the v3 documents' shared "components.parameters" object.
func v3Parameters() []byte {
	all := map[string]v3Param{}
	for name, p := range params {
		all[name] = v3ParamOf(p)
	}
	return mustJSON(all)
}

// v2Paths renders routes as the members of a v2 "paths" object (without
// the enclosing braces).
func v2Paths(routes []route) []byte {
	items := make(map[string]map[string]any, len(routes))
	for _, rt := range routes {
		item := map[string]any{}
		if len(rt.params) > 0 {
			item["parameters"] = refs("#/parameters/", rt.params)
		}
		for _, o := range rt.ops {
			op := v2Operation{Consumes: o.consumes, Description: o.description, OperationID: o.id,
				Produces: o.produces, Responses: map[string]v2Response{}, Tags: []string{o.tag},
				Action: o.action, GVK: toGVKExt(o.gvk)}
			switch {
			case o.body == deleteDef:
				op.Parameters = append(op.Parameters, ref{"#/parameters/" + v2DeleteBody})
			case o.body == patchDef:
				op.Parameters = append(op.Parameters, ref{"#/parameters/" + v2PatchBody})
			case o.body != "":
				op.Parameters = append(op.Parameters, v2Param{In: "body", Name: "body", Required: true, Schema: &ref{refPrefix + o.body}})
			}
			// kubectl's v2 support check follows references into
			// "parameters", so v2 operations inline none.
			for _, q := range o.query {
				op.Parameters = append(op.Parameters, ref{"#/parameters/" + q})
			}
			for _, r := range o.responses {
				op.Responses[r.code] = v2Response{Description: r.description, Schema: &ref{refPrefix + r.def}}
			}
			item[o.method] = op
		}
		items[rt.path] = item
	}
	return members(mustJSON(items))
}

// v3Paths renders routes as the members of a v3 "paths" object.
func v3Paths(routes []route) []byte {
	items := make(map[string]map[string]any, len(routes))
	for _, rt := range routes {
		item := map[string]any{}
		if len(rt.params) > 0 {
			item["parameters"] = refs("#/components/parameters/", rt.params)
		}
		for _, o := range rt.ops {
			op := v3Operation{Description: o.description, OperationID: o.id, Responses: map[string]v3Response{},
				Tags: []string{o.tag}, Action: o.action, GVK: toGVKExt(o.gvk)}
			if o.body != "" {
				types := mediaTypes[:1]
				if o.consumes != nil {
					types = o.consumes
				}
				op.RequestBody = &v3Body{Content: content(types, o.body), Required: !o.bodyOptional}
			}
			for _, q := range o.query {
				if o.inline {
					op.Parameters = append(op.Parameters, v3ParamOf(params[q]))
				} else {
					op.Parameters = append(op.Parameters, ref{"#/components/parameters/" + q})
				}
			}
			for _, r := range o.responses {
				op.Responses[r.code] = v3Response{Description: r.description, Content: content(o.produces, r.def)}
			}
			item[o.method] = op
		}
		items[rt.path] = item
	}
	return members(mustJSON(items))
}

func content(types []string, def string) map[string]v3Media {
	c := make(map[string]v3Media, len(types))
	for _, t := range types {
		c[t] = v3Media{Schema: ref{v3Prefix + def}}
	}
	return c
}

func refs(prefix string, names []string) []ref {
	out := make([]ref, len(names))
	for i, n := range names {
		out[i] = ref{prefix + n}
	}
	return out
}

// members strips the braces of a JSON object, leaving its members so
// several can be joined into one object.
func members(obj []byte) []byte {
	obj = bytes.TrimSpace(obj)
	return obj[1 : len(obj)-1]
}

// mustJSON marshals values built here, which cannot fail to marshal.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("openapi: " + err.Error())
	}
	return yamlSafe(b)
}

// yamlSafe escapes the characters JSON allows raw in strings but YAML
// does not (DEL, C1 controls but NEL, U+FFFE and U+FFFF): gnostic reads
// documents as YAML to make their protobuf form, and would fail on them.
// Outside strings JSON is ASCII, so only strings change, to equal values.
func yamlSafe(b []byte) []byte {
	if !slices.ContainsFunc(b, func(c byte) bool { return c >= 0x7f }) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == 0x7f || r >= 0x80 && r <= 0x9f && r != 0x85 || r == 0xfffe || r == 0xffff {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

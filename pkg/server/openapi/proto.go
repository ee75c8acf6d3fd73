package openapi

import (
	"bytes"
	"fmt"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Protobuf documents are assembled from fragments too. A fragment is the
// encoding of a gnostic message whose only fields are repeated entries
// (Paths holds NamedPathItems, Definitions NamedSchemas, ...); encodings of
// such messages concatenate into one valid message, so a document is its
// header followed by each such field's tag, total length and fragments.
// Fragments come from small JSON documents parsed by gnostic, the same
// conversion kube applies to whole documents.

// Field numbers, read from the gnostic descriptors.
var (
	v2PathsField       = fieldNumber(&openapi_v2.Document{}, "paths")
	v2DefinitionsField = fieldNumber(&openapi_v2.Document{}, "definitions")
	v3PathsField       = fieldNumber(&openapi_v3.Document{}, "paths")
	v3ComponentsField  = fieldNumber(&openapi_v3.Document{}, "components")
	v3SchemasField     = fieldNumber(&openapi_v3.Components{}, "schemas")
	v3ParametersField  = fieldNumber(&openapi_v3.Components{}, "parameters")
)

func fieldNumber(m proto.Message, name protoreflect.Name) protowire.Number {
	f := m.ProtoReflect().Descriptor().Fields().ByName(name)
	if f == nil {
		panic(fmt.Sprintf("openapi: %T has no field %s", m, name))
	}
	return f.Number()
}

var marshal = proto.MarshalOptions{Deterministic: true}

const (
	v2Head = `{"swagger":"2.0","info":{"title":"Kubernetes","version":"unversioned"}`
	v3Head = `{"openapi":"3.0.0","info":{"title":"Kubernetes","version":"unversioned"}`
)

// parseV2 parses a v2 document made of head and the given members.
func parseV2(rest ...[]byte) (*openapi_v2.Document, error) {
	doc, err := openapi_v2.ParseDocument(join(v2Head, rest...))
	if err != nil {
		return nil, fmt.Errorf("openapi: encoding v2 protobuf: %w", err)
	}
	return doc, nil
}

func parseV3(rest ...[]byte) (*openapi_v3.Document, error) {
	doc, err := openapi_v3.ParseDocument(join(v3Head, rest...))
	if err != nil {
		return nil, fmt.Errorf("openapi: encoding v3 protobuf: %w", err)
	}
	return doc, nil
}

func join(head string, rest ...[]byte) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for _, r := range rest {
		b.Write(r)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// v2DefProto encodes one definition member ("name":{...}) as a Definitions
// fragment.
func v2DefProto(member []byte) ([]byte, error) {
	doc, err := parseV2([]byte(`,"paths":{},"definitions":{`), member, []byte("}"))
	if err != nil {
		return nil, err
	}
	return marshal.Marshal(doc.GetDefinitions())
}

// v3DefProto encodes one schema member as a SchemasOrReferences fragment.
func v3DefProto(member []byte) ([]byte, error) {
	doc, err := parseV3([]byte(`,"paths":{},"components":{"schemas":{`), member, []byte("}}"))
	if err != nil {
		return nil, err
	}
	return marshal.Marshal(doc.GetComponents().GetSchemas())
}

// v2PathsProto encodes path members as a Paths fragment.
func v2PathsProto(members []byte) ([]byte, error) {
	doc, err := parseV2([]byte(`,"paths":{`), members, []byte("}"))
	if err != nil {
		return nil, err
	}
	return marshal.Marshal(doc.GetPaths())
}

func v3PathsProto(members []byte) ([]byte, error) {
	doc, err := parseV3([]byte(`,"paths":{`), members, []byte("}"))
	if err != nil {
		return nil, err
	}
	return marshal.Marshal(doc.GetPaths())
}

// v2HeaderProto is the v2 document without paths and definitions: its
// swagger version, info and shared parameters.
func v2HeaderProto(parameters []byte) ([]byte, error) {
	doc, err := parseV2([]byte(`,"paths":{},"parameters":`), parameters)
	if err != nil {
		return nil, err
	}
	doc.Paths = nil
	return marshal.Marshal(doc)
}

// v3HeaderProto is a v3 document's openapi version and info.
func v3HeaderProto() ([]byte, error) {
	doc, err := parseV3([]byte(`,"paths":{}`))
	if err != nil {
		return nil, err
	}
	doc.Paths = nil
	return marshal.Marshal(doc)
}

// v3ParametersProto is the components.parameters field of a Components
// message, ready to precede its schemas.
func v3ParametersProto(parameters []byte) ([]byte, error) {
	doc, err := parseV3([]byte(`,"paths":{},"components":{"parameters":`), parameters, []byte("}"))
	if err != nil {
		return nil, err
	}
	p, err := marshal.Marshal(doc.GetComponents().GetParameters())
	if err != nil {
		return nil, err
	}
	return appendField(nil, v3ParametersField, p), nil
}

// fieldHeader is the tag and length that precede a length-delimited field
// of n bytes.
func fieldHeader(num protowire.Number, n int) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(n))
}

func appendField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

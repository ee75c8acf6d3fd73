package openapi

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// builtDoc is an assembled document: the chunks to write in order (nil when
// only its hash was asked for), its size, and its hash, which is both its
// ETag and, for v3 documents, the hash in its URL.
type builtDoc struct {
	gen    uint64
	chunks [][]byte
	size   int
	hash   string
}

func newBuiltDoc(gen uint64, chunks [][]byte) *builtDoc {
	h := sha512.New()
	for _, c := range chunks {
		h.Write(c)
	}
	return &builtDoc{gen: gen, chunks: chunks, size: size(chunks), hash: strings.ToUpper(hex.EncodeToString(h.Sum(nil)))}
}

func size(chunks [][]byte) int {
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	return n
}

// The parts of documents that do not depend on the resources.
var (
	v2ParamsJSON = sync.OnceValue(v2Parameters)
	v3ParamsJSON = sync.OnceValue(v3Parameters)
	v2HeaderPB   = sync.OnceValues(func() ([]byte, error) { return v2HeaderProto(v2ParamsJSON()) })
	v3HeaderPB   = sync.OnceValues(v3HeaderProto)
	v3ParamsPB   = sync.OnceValues(func() ([]byte, error) { return v3ParametersProto(v3ParamsJSON()) })
)

var comma = []byte(",")

// v2Doc returns the v2 document in format f (v2JSON or v2Proto), with its
// content if body is set. The hash is computed again only when the
// group-versions changed; the protobuf document's chunks are kept, the
// JSON one's are assembled again per request.
func (s *Service) v2Doc(f format, body bool) (*builtDoc, error) {
	i := int(f - v2JSON) // v2JSON and v2Proto are 0 and 1
	s.buildV2[i].Lock()
	defer s.buildV2[i].Unlock()
	gvs, gen := s.snapshot()
	s.mu.Lock()
	d := s.v2[i]
	s.mu.Unlock()
	if d != nil && d.gen == gen && (!body || d.chunks != nil) {
		return d, nil
	}
	chunks, err := assembleV2(f, gvs)
	if err != nil {
		return nil, err
	}
	if d != nil && d.gen == gen {
		return &builtDoc{gen: gen, chunks: chunks, size: d.size, hash: d.hash}, nil
	}
	d = newBuiltDoc(gen, chunks)
	kept := *d
	if f != v2Proto {
		kept.chunks = nil
	}
	s.mu.Lock()
	s.v2[i] = &kept
	s.mu.Unlock()
	return d, nil
}

func assembleV2(f format, gvs []*groupVersion) ([][]byte, error) {
	// Every group-version's definitions, each name once.
	seen := map[string]*definition{}
	for _, g := range gvs {
		for _, def := range g.defs {
			if _, ok := seen[def.name]; !ok {
				seen[def.name] = def
			}
		}
	}
	defs := make([]*fragment, 0, len(seen))
	for _, name := range slices.Sorted(maps.Keys(seen)) {
		defs = append(defs, &seen[name].fragment)
	}
	paths := make([]*fragment, len(gvs))
	for i, g := range gvs {
		paths[i] = &g.paths
	}

	var err error
	if f == v2JSON {
		chunks := [][]byte{[]byte(v2Head + `,"paths":{`)}
		if chunks, err = appendJoined(chunks, paths, f); err != nil {
			return nil, err
		}
		chunks = append(chunks, []byte(`},"definitions":{`))
		if chunks, err = appendJoined(chunks, defs, f); err != nil {
			return nil, err
		}
		return append(chunks, []byte(`},"parameters":`), v2ParamsJSON(), []byte(`}`)), nil
	}
	header, err := v2HeaderPB()
	if err != nil {
		return nil, err
	}
	chunks := [][]byte{header}
	if chunks, err = appendMessage(chunks, v2PathsField, paths, f); err != nil {
		return nil, err
	}
	return appendMessage(chunks, v2DefinitionsField, defs, f)
}

// appendJoined appends the fragments' encodings in format f, separated by
// commas: the members of one JSON object.
func appendJoined(chunks [][]byte, frags []*fragment, f format) ([][]byte, error) {
	for i, fr := range frags {
		b, err := fr.get(f)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			chunks = append(chunks, comma)
		}
		chunks = append(chunks, b)
	}
	return chunks, nil
}

// appendMessage appends a length-delimited protobuf field whose message is
// the concatenation of the fragments' encodings in format f.
func appendMessage(chunks [][]byte, num protowire.Number, frags []*fragment, f format) ([][]byte, error) {
	parts, err := encodings(frags, f)
	if err != nil {
		return nil, err
	}
	chunks = append(chunks, fieldHeader(num, size(parts)))
	return append(chunks, parts...), nil
}

func encodings(frags []*fragment, f format) ([][]byte, error) {
	parts := make([][]byte, len(frags))
	for i, fr := range frags {
		b, err := fr.get(f)
		if err != nil {
			return nil, err
		}
		parts[i] = b
	}
	return parts, nil
}

// v3Doc returns the group-version's v3 document in format f (v3JSON or
// v3Proto), with its content if body is set. Both formats carry the hash
// of the JSON, which the index publishes; only that hash and the JSON's
// size are kept.
func (g *groupVersion) v3Doc(f format, body bool) (*builtDoc, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hash == "" {
		chunks, err := g.assembleV3(v3JSON)
		if err != nil {
			return nil, err
		}
		d := newBuiltDoc(0, chunks)
		g.hash, g.size = d.hash, d.size
		if f == v3JSON && body {
			return d, nil
		}
	}
	if !body {
		return &builtDoc{size: g.size, hash: g.hash}, nil
	}
	chunks, err := g.assembleV3(f)
	if err != nil {
		return nil, err
	}
	return &builtDoc{chunks: chunks, size: size(chunks), hash: g.hash}, nil
}

func (g *groupVersion) assembleV3(f format) ([][]byte, error) {
	defs := make([]*fragment, len(g.defs))
	for i, d := range g.defs {
		defs[i] = &d.fragment
	}
	paths, err := g.paths.get(f)
	if err != nil {
		return nil, err
	}
	if f == v3JSON {
		chunks := [][]byte{[]byte(v3Head + `,"paths":{`), paths, []byte(`},"components":{"parameters":`), v3ParamsJSON(), []byte(`,"schemas":{`)}
		if chunks, err = appendJoined(chunks, defs, v3JSON); err != nil {
			return nil, err
		}
		return append(chunks, []byte(`}}}`)), nil
	}
	header, err := v3HeaderPB()
	if err != nil {
		return nil, err
	}
	params, err := v3ParamsPB()
	if err != nil {
		return nil, err
	}
	schemas, err := encodings(defs, v3Proto)
	if err != nil {
		return nil, err
	}
	// components holds the parameters, then the schemas.
	n := size(schemas)
	schemasHeader := fieldHeader(v3SchemasField, n)
	chunks := [][]byte{header, fieldHeader(v3PathsField, len(paths)), paths,
		fieldHeader(v3ComponentsField, len(params)+len(schemasHeader)+n), params, schemasHeader}
	return append(chunks, schemas...), nil
}

// indexDoc returns the v3 index: every group-version's document URL with
// its hash.
func (s *Service) indexDoc() (*builtDoc, error) {
	s.buildIndex.Lock()
	defer s.buildIndex.Unlock()
	gvs, gen := s.snapshot()
	s.mu.Lock()
	d := s.index
	s.mu.Unlock()
	if d != nil && d.gen == gen {
		return d, nil
	}
	type entry struct {
		URL string `json:"serverRelativeURL"`
	}
	paths := make(map[string]entry, len(gvs))
	for _, g := range gvs {
		doc, err := g.v3Doc(v3JSON, false)
		if err != nil {
			return nil, err
		}
		paths[g.path] = entry{v3URL(g.path, doc.hash)}
	}
	index, err := json.Marshal(map[string]any{"paths": paths})
	if err != nil {
		return nil, err
	}
	d = newBuiltDoc(gen, [][]byte{index})
	s.mu.Lock()
	s.index = d
	s.mu.Unlock()
	return d, nil
}

// v3URL is where a group-version's v3 document with the given hash is.
func v3URL(gvPath, hash string) string {
	return path.Join("/openapi/v3", gvPath) + "?" + url.Values{"hash": {hash}}.Encode()
}

package openapi

import (
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Service holds the documents and serves them. Its methods are safe for
// concurrent use.
type Service struct {
	mu  sync.Mutex
	gen uint64 // counts changes; built documents record the gen they show
	gvs map[string]*groupVersion
	// defs shares definition fragments between group-versions.
	defs  map[defKey]*definition
	v2    [2]*builtDoc // JSON (hash only), protobuf
	index *builtDoc

	// Building a document that spans every group-version is serialized
	// per document, so concurrent requests do not build it twice.
	buildV2    [2]sync.Mutex
	buildIndex sync.Mutex
}

// NewService returns a Service describing nothing yet.
func NewService() *Service {
	return &Service{gvs: map[string]*groupVersion{}, defs: map[defKey]*definition{}}
}

// groupVersion is what the documents say about one group-version. It is
// replaced, never changed, when the group-version changes; its documents
// are built on first request.
type groupVersion struct {
	gv        schema.GroupVersion
	path      string
	resources []Resource
	// defs are the definitions its document includes, by name.
	defs  []*definition
	paths fragment

	mu sync.Mutex
	// hash and size of the v3 JSON document, once known.
	hash string
	size int
}

// SetGroupVersion replaces what the documents say about one group-version;
// no resources removes it. Nothing is encoded here: the group-version's v3
// document, the v3 index and the v2 document are rebuilt on their next
// request, from fragments of which only the changed group-version's are
// new.
func (s *Service) SetGroupVersion(gv schema.GroupVersion, resources []Resource) {
	var g *groupVersion
	var keys []defKey
	if len(resources) > 0 {
		g = &groupVersion{gv: gv, path: gvPath(gv), resources: slices.Clone(resources)}
		g.paths.make = g.encodePaths
		g.paths.keep = func(f format) bool { return f == v2Proto }
		keys = definitionsOf(g.resources)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	key := gvPath(gv)
	old := s.gvs[key]
	delete(s.gvs, key)
	if g != nil {
		g.defs = make([]*definition, len(keys))
		for i, k := range keys {
			d := s.defs[k]
			if d == nil {
				d = newDefinition(k)
				s.defs[k] = d
			}
			d.refs.Add(1)
			g.defs[i] = d
		}
		s.gvs[key] = g
	}
	// Released after acquiring, so definitions both use keep their
	// encodings.
	if old != nil {
		s.release(old)
	}
	s.gen++
}

func (s *Service) release(g *groupVersion) {
	for _, d := range g.defs {
		if d.refs.Add(-1) == 0 {
			delete(s.defs, d.defKey)
		}
	}
}

// definitionsOf returns the definitions a group-version's document
// includes, ordered by name: its resources' (each kind winning over a
// same-named definition it is merely referenced as), their list kinds,
// and those its operations refer to.
func definitionsOf(rs []Resource) []defKey {
	byName := map[string]defKey{}
	for name, s := range MergeDefinitions(rs) {
		byName[name] = defKey{name: name, schema: s}
	}
	scale := false
	for i := range rs {
		r := &rs[i]
		if _, ok := byName[r.listRoot()]; !ok && r.Root != "" {
			byName[r.listRoot()] = defKey{name: r.listRoot(), list: newListDef(r)}
		}
		scale = scale || r.hasSubresource("scale")
	}
	add := func(m map[string]*spec.Schema) {
		for name, s := range m {
			if _, ok := byName[name]; !ok {
				byName[name] = defKey{name: name, schema: s}
			}
		}
	}
	add(commonDefs())
	if scale {
		add(scaleDefs())
	}
	keys := make([]defKey, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		keys = append(keys, byName[name])
	}
	return keys
}

// encodePaths renders the group-version's paths.
func (g *groupVersion) encodePaths(f format, fr *fragment) ([]byte, error) {
	switch f {
	case v2JSON:
		return v2Paths(routesFor(g.gv, g.resources)), nil
	case v3JSON:
		return v3Paths(routesFor(g.gv, g.resources)), nil
	}
	members, err := fr.jsonOf(f)
	if err != nil {
		return nil, err
	}
	if f == v2Proto {
		return v2PathsProto(members)
	}
	return v3PathsProto(members)
}

// snapshot returns the group-versions in path order and the current gen.
func (s *Service) snapshot() ([]*groupVersion, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gvs := make([]*groupVersion, 0, len(s.gvs))
	for _, key := range slices.Sorted(maps.Keys(s.gvs)) {
		gvs = append(gvs, s.gvs[key])
	}
	return gvs, s.gen
}

func (s *Service) lookup(path string) *groupVersion {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gvs[path]
}

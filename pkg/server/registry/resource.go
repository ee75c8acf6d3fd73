package registry

import (
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Resource is one group/version/resource as served over HTTP.
type Resource struct {
	Group, Version string
	Kind, ListKind string
	// Plural is the URL path segment; Singular is what kubectl accepts as
	// an alias.
	Plural, Singular string
	ShortNames       []string
	Categories       []string
	Namespaced       bool
	// StatusSubresource makes /status the only way to write .status and
	// keeps status changes out of metadata.generation.
	StatusSubresource bool
	// TracksGeneration sets metadata.generation to 1 on create and bumps
	// it on changes outside metadata (and status). Custom resources and
	// CRDs track it; most built-in kinds, as in Kubernetes, do not.
	TracksGeneration bool
	// SelectableFields are field selector paths beyond metadata.name and
	// metadata.namespace, such as "involvedObject.name" for Events.
	SelectableFields []string
	// Columns are the table columns after Name; Age is always last unless
	// a column is named Age.
	Columns []Column
	// NoAge leaves the Age column out of tables, for the few kinds
	// kube prints without one (PodTemplates).
	NoAge bool
	// OwnColumns makes Columns the whole table, Name included wherever
	// it stands, with no Age added: core Events, which kube prints with
	// the last-seen time first and the name last.
	OwnColumns bool
	// CreatesOnUpdate makes an update (PUT) of a missing object create
	// it, answered 201, as kube-apiserver does for the kinds whose
	// strategy allows create on update: Leases, Events, Services and
	// Endpoints. Others answer such a PUT with 404.
	CreatesOnUpdate bool
	// Typed kinds have a Go type in the built-in scheme: request bodies
	// are normalized through it and protobuf is served for them.
	Typed bool
	// NameIsLabel applies DNS-1123 label rules to names (Namespaces);
	// otherwise names are DNS-1123 subdomains.
	NameIsLabel bool
	// NameIsPathSegment accepts any name that is one URL path segment
	// (not "." or "..", no "/" or "%"), as kube's RBAC kinds do: their
	// names hold colons ("system:controller:job-controller").
	NameIsPathSegment bool
	// Strategy holds the kind's own create and update rules; nil means
	// none beyond the generic ones.
	Strategy Strategy
	// Schema is a custom resource version's openAPIV3Schema as the CRD
	// gives it; nil for built-in kinds and CRDs without one.
	Schema *apiextensionsv1.JSONSchemaProps
	// custom is Schema compiled.
	custom *customSchema
	// Scale, when set, serves the scale subresource.
	Scale *Scale
	// StorageVersion is the version of the storage resource
	// (StorageResource) that objects are written in: a custom resource's
	// storage version when the CRD serves it, core's v1 for
	// events.k8s.io Events. Built-in kinds stored in the version they
	// are served in leave it empty.
	StorageVersion string
	// SharesStorage names another group/resource whose keys and watch
	// cache hold this resource's objects, as events.k8s.io Events are
	// core Events stored once; Converter then turns objects between this
	// version and that resource's stored form. Zero for resources stored
	// under their own name (every version of a custom resource is).
	SharesStorage schema.GroupResource
	// Converter converts between this version and the stored form; nil
	// means the forms differ only in apiVersion (and, for custom
	// resources, in pruning and defaults).
	Converter Converter
	// Verbs limits what the resource serves; nil is every verb of a
	// stored resource. A resource that cannot be listed is not stored:
	// the server answers its requests itself (SelfSubjectReview).
	Verbs []string
}

// AllVerbs are the verbs of a stored resource.
var AllVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// ServedVerbs returns Verbs, or AllVerbs when it is nil.
func (r *Resource) ServedVerbs() []string {
	if r.Verbs == nil {
		return AllVerbs
	}
	return r.Verbs
}

// Serves reports whether the resource serves verb.
func (r *Resource) Serves(verb string) bool {
	return slices.Contains(r.ServedVerbs(), verb)
}

// Stored reports whether the resource's objects are kept in storage.
func (r *Resource) Stored() bool { return r.Serves("list") }

// Scale says where a custom resource keeps what its scale subresource
// reads and writes: dotted JSON paths such as ".spec.replicas".
type Scale struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  string
}

// Column is one server-side table column. Path is a dotted JSON path into
// the object (".spec.replicas"); Value, when set, computes the cell
// instead, for columns a path cannot express (a count of keys).
type Column struct {
	Name        string
	Type        string // integer, number, string, boolean, date
	Format      string
	Description string
	Priority    int32
	Path        string
	Value       func(obj map[string]any) any
	// ValueAt, when set, computes the cell as of now, for cells that
	// say how long ago something happened (a pod's last restart).
	// Tables use it in preference to Value.
	ValueAt func(obj map[string]any, now time.Time) any
}

// Cell computes the column's cell of obj as of now from ValueAt or
// Value; ok is false for a column read by Path.
func (c Column) Cell(obj map[string]any, now time.Time) (v any, ok bool) {
	switch {
	case c.ValueAt != nil:
		return c.ValueAt(obj, now), true
	case c.Value != nil:
		return c.Value(obj), true
	}
	return nil, false
}

// GroupVersion is the resource's group and version.
func (r *Resource) GroupVersion() schema.GroupVersion {
	return schema.GroupVersion{Group: r.Group, Version: r.Version}
}

// GroupVersionKind is the kind's full name.
func (r *Resource) GroupVersionKind() schema.GroupVersionKind {
	return r.GroupVersion().WithKind(r.Kind)
}

// GroupVersionResource names the resource as URLs do.
func (r *Resource) GroupVersionResource() schema.GroupVersionResource {
	return r.GroupVersion().WithResource(r.Plural)
}

// APIVersion is the value of an object's apiVersion field.
func (r *Resource) APIVersion() string {
	return r.GroupVersion().String()
}

// GroupResource names the resource independently of version; objects of
// every served version share one set of keys.
func (r *Resource) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Plural}
}

// ValidateName returns why name is not acceptable for this resource.
func (r *Resource) ValidateName(name string) []string {
	switch {
	case r.NameIsLabel:
		return validation.IsDNS1123Label(name)
	case r.NameIsPathSegment:
		return content.IsPathSegmentName(name)
	}
	return validation.IsDNS1123Subdomain(name)
}

// keyRoot is where every object lives in storage, so one storage watch
// on it sees every change the server makes.
const keyRoot = "/registry/"

// KeyRoot is the storage prefix under which every object is kept.
func KeyRoot() string { return keyRoot }

// Prefix is the storage prefix of all objects of the resource.
func (r *Resource) Prefix() string {
	return PrefixFor(r.StorageResource())
}

// PrefixFor is the storage prefix of a group/resource.
func PrefixFor(gr schema.GroupResource) string {
	g := gr.Group
	if g == "" {
		// The core group has no name; "core" cannot clash with a custom
		// group because those must contain a dot.
		g = "core"
	}
	return keyRoot + g + "/" + gr.Resource + "/"
}

// NamespacePrefix is the storage prefix of the objects in one namespace;
// for "" it is the whole resource.
func (r *Resource) NamespacePrefix(namespace string) string {
	if namespace == "" || !r.Namespaced {
		return r.Prefix()
	}
	return r.Prefix() + namespace + "/"
}

// Key is the storage key of one object.
func (r *Resource) Key(namespace, name string) string {
	if r.Namespaced {
		return r.Prefix() + namespace + "/" + name
	}
	return r.Prefix() + name
}

// ParseKey splits a storage key into its group/resource and the rest
// (namespace/name or name). ok is false for keys outside KeyRoot.
func ParseKey(key string) (gr schema.GroupResource, rest string, ok bool) {
	s, ok := strings.CutPrefix(key, keyRoot)
	if !ok {
		return gr, "", false
	}
	group, s, ok := strings.Cut(s, "/")
	if !ok {
		return gr, "", false
	}
	res, rest, ok := strings.Cut(s, "/")
	if !ok {
		return gr, "", false
	}
	if group == "core" {
		group = ""
	}
	return schema.GroupResource{Group: group, Resource: res}, rest, true
}

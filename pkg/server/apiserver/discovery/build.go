package discovery

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apidiscoveryv2beta1 "k8s.io/api/apidiscovery/v2beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// statusVerbs are the verbs of every status and scale subresource,
// sorted as kube-apiserver lists them.
var statusVerbs = metav1.Verbs{"get", "patch", "update"}

// document is one encoded answer.
type document struct {
	body []byte
	// etag is the quoted ETag header value: a hash of body.
	etag string
}

func newDocument(v any) (*document, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	return &document{body: body, etag: `"` + hex.EncodeToString(sum[:]) + `"`}, nil
}

// snapshot holds every document of one registry generation.
type snapshot struct {
	// changed is closed when the registry changes after this snapshot's
	// resources were read, so the snapshot is stale.
	changed <-chan struct{}

	// apiPrefix and apiSuffix are the /api APIVersions document around
	// the JSON string of the server address, which is the request's Host.
	apiPrefix, apiSuffix []byte

	groupList      *document                         // /apis
	groups         map[string]*document              // /apis/<group>
	resourceLists  map[schema.GroupVersion]*document // /api/<v>, /apis/<group>/<v>
	aggregatedCore map[format]*document              // /api, aggregated
	aggregated     map[format]*document              // /apis, aggregated
}

func (s *snapshot) stale() bool {
	select {
	case <-s.changed:
		return true
	default:
		return false
	}
}

// group is one API group's served versions and their resources.
type group struct {
	name     string
	versions []string // by priority, preferred first
	byVer    map[string][]*registry.Resource
}

// groupResources sorts resources into groups ordered by name (so the core
// group, "", comes first), versions by Kubernetes version priority and
// resources by plural name.
func groupResources(resources []*registry.Resource) []*group {
	byName := map[string]*group{}
	var groups []*group
	for _, r := range resources {
		g := byName[r.Group]
		if g == nil {
			g = &group{name: r.Group, byVer: map[string][]*registry.Resource{}}
			byName[r.Group] = g
			groups = append(groups, g)
		}
		if _, ok := g.byVer[r.Version]; !ok {
			g.versions = append(g.versions, r.Version)
		}
		g.byVer[r.Version] = append(g.byVer[r.Version], r)
	}
	slices.SortFunc(groups, func(a, b *group) int { return cmp.Compare(a.name, b.name) })
	for _, g := range groups {
		slices.SortFunc(g.versions, func(a, b string) int {
			return version.CompareKubeAwareVersionStrings(b, a)
		})
		for _, rs := range g.byVer {
			slices.SortFunc(rs, func(a, b *registry.Resource) int { return cmp.Compare(a.Plural, b.Plural) })
		}
	}
	return groups
}

// build encodes every document for resources. changed is the registry's
// change channel read before resources were.
func build(changed <-chan struct{}, resources []*registry.Resource) (*snapshot, error) {
	s := &snapshot{
		changed:        changed,
		groups:         map[string]*document{},
		resourceLists:  map[schema.GroupVersion]*document{},
		aggregatedCore: map[format]*document{},
		aggregated:     map[format]*document{},
	}
	groups := groupResources(resources)

	var core *group
	apiGroups := []metav1.APIGroup{}
	for _, g := range groups {
		for _, v := range g.versions {
			gv := schema.GroupVersion{Group: g.name, Version: v}
			doc, err := newDocument(&metav1.APIResourceList{
				TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
				GroupVersion: gv.String(),
				APIResources: legacyResources(g.byVer[v]),
			})
			if err != nil {
				return nil, err
			}
			s.resourceLists[gv] = doc
		}
		if g.name == "" {
			core = g
			continue
		}
		ag := legacyGroup(g)
		doc, err := newDocument(&ag)
		if err != nil {
			return nil, err
		}
		s.groups[g.name] = doc
		// Inside the list a group carries no kind of its own.
		ag.TypeMeta = metav1.TypeMeta{}
		apiGroups = append(apiGroups, ag)
	}
	var err error
	if s.groupList, err = newDocument(&metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   apiGroups,
	}); err != nil {
		return nil, err
	}
	if s.apiPrefix, s.apiSuffix, err = apiVersions(core); err != nil {
		return nil, err
	}

	coreItems := []apidiscoveryv2.APIGroupDiscovery{}
	items := []apidiscoveryv2.APIGroupDiscovery{}
	for _, g := range groups {
		if g == core {
			coreItems = append(coreItems, aggregatedGroup(g))
		} else {
			items = append(items, aggregatedGroup(g))
		}
	}
	if err := aggregatedDocuments(s.aggregatedCore, coreItems); err != nil {
		return nil, err
	}
	if err := aggregatedDocuments(s.aggregated, items); err != nil {
		return nil, err
	}
	return s, nil
}

func singular(r *registry.Resource) string {
	if r.Singular != "" {
		return r.Singular
	}
	return strings.ToLower(r.Kind)
}

func legacyResources(rs []*registry.Resource) []metav1.APIResource {
	out := make([]metav1.APIResource, 0, 2*len(rs))
	for _, r := range rs {
		a := metav1.APIResource{
			Name:         r.Plural,
			SingularName: singular(r),
			Namespaced:   r.Namespaced,
			Kind:         r.Kind,
			Verbs:        metav1.Verbs(r.ServedVerbs()),
			ShortNames:   r.ShortNames,
			Categories:   r.Categories,
		}
		switch {
		case r.StorageVersion != "":
			// Every served version of a custom resource names the one
			// its objects are stored in; events.k8s.io Events name
			// core's, where they are kept.
			a.StorageVersionHash = storageVersionHash(r.StorageResource().Group, r.StorageVersion, r.Kind)
		case r.Typed && r.Stored():
			// Built-in kinds are stored in the version they are served
			// in.
			a.StorageVersionHash = storageVersionHash(r.Group, r.Version, r.Kind)
		}
		out = append(out, a)
		for _, s := range servedSubresources(r) {
			a := metav1.APIResource{
				Name: r.Plural + "/" + string(s.name), Namespaced: r.Namespaced,
				Group: s.kind.Group, Version: s.kind.Version, Kind: s.kind.Kind, Verbs: s.verbs,
			}
			// kube-apiserver names the group and version only of a
			// kind from elsewhere (an Eviction), not of the resource's own.
			if a.Group == r.Group && a.Version == r.Version {
				a.Group, a.Version = "", ""
			}
			out = append(out, a)
		}
		for _, sub := range statusAndScale(r) {
			// kube-apiserver leaves singularName empty on subresources.
			a := metav1.APIResource{Name: r.Plural + "/" + sub, Namespaced: r.Namespaced, Kind: r.Kind, Verbs: statusVerbs}
			if sub == "scale" {
				a.Group, a.Version, a.Kind = "autoscaling", "v1", "Scale"
			}
			out = append(out, a)
		}
	}
	return out
}

// storageVersionHash is how kube-apiserver names a storage version: the
// first 8 bytes of the SHA-256 of "group/version/kind", base64-encoded.
func storageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

func legacyGroup(g *group) metav1.APIGroup {
	ag := metav1.APIGroup{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
		Name:     g.name,
	}
	for _, v := range g.versions {
		ag.Versions = append(ag.Versions, metav1.GroupVersionForDiscovery{
			GroupVersion: schema.GroupVersion{Group: g.name, Version: v}.String(),
			Version:      v,
		})
	}
	ag.PreferredVersion = ag.Versions[0]
	return ag
}

// hostPlaceholder stands for the server address while the /api document
// is encoded; it cannot occur in JSON any other way.
const hostPlaceholder = "\x00host\x00"

// apiVersions encodes the /api APIVersions document split around the
// server address.
func apiVersions(core *group) (prefix, suffix []byte, err error) {
	versions := []string{}
	if core != nil {
		versions = core.versions
	}
	body, err := json.Marshal(&metav1.APIVersions{
		TypeMeta: metav1.TypeMeta{Kind: "APIVersions", APIVersion: "v1"},
		Versions: versions,
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
			{ClientCIDR: "0.0.0.0/0", ServerAddress: hostPlaceholder},
		},
	})
	if err != nil {
		return nil, nil, err
	}
	ph, err := json.Marshal(hostPlaceholder)
	if err != nil {
		return nil, nil, err
	}
	before, after, ok := bytes.Cut(body, ph)
	if !ok {
		return nil, nil, fmt.Errorf("discovery: server address placeholder missing from %s", body)
	}
	return before, after, nil
}

// apiVersionsBody is the /api document for a server reached as host.
func (s *snapshot) apiVersionsBody(host string) ([]byte, error) {
	h, err := json.Marshal(host)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(s.apiPrefix)+len(h)+len(s.apiSuffix))
	out = append(out, s.apiPrefix...)
	out = append(out, h...)
	return append(out, s.apiSuffix...), nil
}

func aggregatedGroup(g *group) apidiscoveryv2.APIGroupDiscovery {
	out := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.name}}
	for _, v := range g.versions {
		vd := apidiscoveryv2.APIVersionDiscovery{
			Version:   v,
			Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
		}
		for _, r := range g.byVer[v] {
			kind := &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
			scope := apidiscoveryv2.ScopeCluster
			if r.Namespaced {
				scope = apidiscoveryv2.ScopeNamespace
			}
			rd := apidiscoveryv2.APIResourceDiscovery{
				Resource:         r.Plural,
				ResponseKind:     kind,
				Scope:            scope,
				SingularResource: singular(r),
				Verbs:            metav1.Verbs(r.ServedVerbs()),
				ShortNames:       r.ShortNames,
				Categories:       r.Categories,
			}
			for _, s := range servedSubresources(r) {
				kind := s.kind
				rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{
					Subresource: string(s.name), ResponseKind: &kind, Verbs: s.verbs,
				})
			}
			for _, sub := range statusAndScale(r) {
				sd := apidiscoveryv2.APISubresourceDiscovery{Subresource: sub, ResponseKind: kind, Verbs: statusVerbs}
				if sub == "scale" {
					sd.ResponseKind = &metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
				}
				rd.Subresources = append(rd.Subresources, sd)
			}
			vd.Resources = append(vd.Resources, rd)
		}
		out.Versions = append(out.Versions, vd)
	}
	return out
}

// aggregatedDocuments encodes items as a v2 and as a v2beta1
// APIGroupDiscoveryList into docs.
func aggregatedDocuments(docs map[format]*document, items []apidiscoveryv2.APIGroupDiscovery) error {
	v2 := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: discoveryListKind, APIVersion: apidiscoveryv2.SchemeGroupVersion.String()},
		Items:    items,
	}
	doc, err := newDocument(v2)
	if err != nil {
		return err
	}
	docs[formatV2] = doc

	// v2beta1 has the same fields under the same JSON names. Decoding
	// the v2 document into its types, refusing unknown fields, checks
	// that rather than assuming it.
	beta := &apidiscoveryv2beta1.APIGroupDiscoveryList{}
	dec := json.NewDecoder(bytes.NewReader(doc.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(beta); err != nil {
		return fmt.Errorf("discovery: v2 document does not fit v2beta1: %w", err)
	}
	beta.APIVersion = apidiscoveryv2beta1.SchemeGroupVersion.String()
	if docs[formatV2Beta1], err = newDocument(beta); err != nil {
		return err
	}
	return nil
}

// statusAndScale names r's status and scale subresources in the order
// kube lists them: by name for built-in kinds (kube-apiserver sorts
// their paths), status first for custom resources (as
// apiextensions-apiserver lists them).
func statusAndScale(r *registry.Resource) []string {
	var out []string
	if r.StatusSubresource {
		out = append(out, "status")
	}
	if r.Scale != nil {
		if r.Typed {
			out = append([]string{"scale"}, out...)
		} else {
			out = append(out, "scale")
		}
	}
	return out
}

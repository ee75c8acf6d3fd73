package registry

import (
	"cmp"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// Registry is the live set of served resources. Built-in resources are
// owned by "" and never change; each CRD owns the versions it serves, and
// SetOwned replaces them as the CRD changes. Readers see a consistent
// snapshot; Changed lets discovery rebuild only when something moved.
type Registry struct {
	mu      sync.RWMutex
	byGVR   map[schema.GroupVersionResource]entry
	changed chan struct{}
	gen     uint64
}

type entry struct {
	owner string
	res   *Resource
}

// New returns a registry serving the given resources, owned by "".
func New(resources ...*Resource) *Registry {
	r := &Registry{byGVR: map[schema.GroupVersionResource]entry{}, changed: make(chan struct{})}
	for _, res := range resources {
		r.byGVR[res.GroupVersionResource()] = entry{res: res}
	}
	return r
}

// Get returns the resource a URL names.
func (r *Registry) Get(gvr schema.GroupVersionResource) (*Resource, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.byGVR[gvr]
	return e.res, ok
}

// Owner returns who owns a group/resource: "" for built-ins, the CRD's
// name for custom resources; ok is false when nothing serves it.
func (r *Registry) Owner(gr schema.GroupResource) (owner string, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for gvr, e := range r.byGVR {
		if gvr.GroupResource() == gr {
			return e.owner, true
		}
	}
	return "", false
}

// Resources returns every served resource ordered by group, then by
// version priority (v1 before v1beta1), then by plural.
func (r *Registry) Resources() []*Resource {
	r.mu.RLock()
	out := make([]*Resource, 0, len(r.byGVR))
	for _, e := range r.byGVR {
		out = append(out, e.res)
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Resource) int {
		if c := cmp.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		if c := version.CompareKubeAwareVersionStrings(b.Version, a.Version); c != 0 {
			return c
		}
		return cmp.Compare(a.Plural, b.Plural)
	})
	return out
}

// SetOwned replaces everything owner serves with resources. A
// group/version/resource already served by another owner is left alone
// and returned in conflicts, so one CRD cannot take over another's (or a
// built-in's) names.
func (r *Registry) SetOwned(owner string, resources []*Resource) (conflicts []*Resource) {
	r.mu.Lock()
	defer r.mu.Unlock()
	moved := false
	for gvr, e := range r.byGVR {
		if e.owner == owner && owner != "" {
			delete(r.byGVR, gvr)
			moved = true
		}
	}
	for _, res := range resources {
		gvr := res.GroupVersionResource()
		if e, ok := r.byGVR[gvr]; ok && e.owner != owner {
			conflicts = append(conflicts, res)
			continue
		}
		r.byGVR[gvr] = entry{owner: owner, res: res}
		moved = true
	}
	if moved {
		r.gen++
		close(r.changed)
		r.changed = make(chan struct{})
	}
	return conflicts
}

// Changed returns the current generation and a channel closed at the
// next change.
func (r *Registry) Changed() (uint64, <-chan struct{}) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.gen, r.changed
}

// Owned returns the resources owner serves.
func (r *Registry) Owned(owner string) []*Resource {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*Resource
	for _, e := range r.byGVR {
		if e.owner == owner {
			out = append(out, e.res)
		}
	}
	return out
}

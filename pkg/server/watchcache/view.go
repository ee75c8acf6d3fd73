package watchcache

import "sync"

// views keeps what an object or event becomes in the other versions it is
// served in (events.k8s.io Events over stored core Events, a custom
// resource's other versions): each is built once, by the first reader of
// that version, and shared by the rest, so converted LISTs and watch
// frames cost what unconverted ones do.
type views[T any] struct {
	mu sync.Mutex
	// by holds one entry per version. owner is what built it (the
	// serving resource): a CRD update replaces the resource and so
	// rebuilds its views, whose schema may have changed.
	by []view[T]
}

type view[T any] struct {
	version string
	owner   any
	v       T
}

func (vs *views[T]) get(version string, owner any, build func() (T, error)) (T, error) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	i := 0
	for ; i < len(vs.by); i++ {
		if vs.by[i].version == version {
			if vs.by[i].owner == owner {
				return vs.by[i].v, nil
			}
			break
		}
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	e := view[T]{version: version, owner: owner, v: v}
	if i < len(vs.by) {
		vs.by[i] = e
	} else {
		vs.by = append(vs.by, e)
	}
	return v, nil
}

// View returns the object as version serves it: build's result, built on
// the first call for that version and owner and kept with the object.
func (o *Object) View(version string, owner any, build func(*Object) (*Object, error)) (*Object, error) {
	return o.views.get(version, owner, func() (*Object, error) { return build(o) })
}

// View returns the event as version serves it, kept like Object.View;
// the view has its own Memo slots, so each version's frames are built
// once per event and shared by that version's watchers.
func (e *Event) View(version string, owner any, build func(*Event) (*Event, error)) (*Event, error) {
	return e.views.get(version, owner, func() (*Event, error) { return build(e) })
}

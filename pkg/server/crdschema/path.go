package crdschema

import (
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// seg is one step of the path to the value being walked: a key, or an
// index when idx >= 0.
type seg struct {
	key string
	idx int
}

// walker keeps the current path as a reusable stack so that walking an
// object allocates nothing; field.Path values are built only for errors.
type walker struct {
	segs   []seg
	pooled *[]seg // where segs came from, when from segPool
}

// segPool recycles path stacks: escape analysis cannot keep them on the
// stack because the walkers also collect errors, which live on.
var segPool = sync.Pool{New: func() any { s := make([]seg, 0, 32); return &s }}

func (w *walker) start() {
	w.pooled = segPool.Get().(*[]seg)
	w.segs = (*w.pooled)[:0]
}

func (w *walker) done() {
	s := w.segs[:cap(w.segs)]
	clear(s) // do not keep the keys of objects alive
	*w.pooled = s[:0]
	segPool.Put(w.pooled)
	w.segs, w.pooled = nil, nil
}

func (w *walker) push(k string) { w.segs = append(w.segs, seg{key: k, idx: -1}) }
func (w *walker) pushIndex(i int) {
	w.segs = append(w.segs, seg{idx: i})
}
func (w *walker) pop() { w.segs = w.segs[:len(w.segs)-1] }

// fieldPath returns the current path; nil at the root, as kube reports
// errors about the whole object.
func (w *walker) fieldPath() *field.Path {
	var p *field.Path
	for _, s := range w.segs {
		if s.idx >= 0 {
			p = p.Index(s.idx)
		} else {
			p = p.Child(s.key)
		}
	}
	return p
}

// name renders the path as kube's schema validator names values in its
// messages (and as pruning reports unknown fields): "spec.items[0].name",
// and "" for the root.
func (w *walker) name() string {
	var b strings.Builder
	for i, s := range w.segs {
		if s.idx >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.idx))
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

func (w *walker) childName(k string) string {
	w.push(k)
	s := w.name()
	w.pop()
	return s
}

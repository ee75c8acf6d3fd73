package memory

import (
	"slices"
	"sort"
)

// keyOrder keeps the store's keys sorted for prefix listing. New keys wait
// in pending and are merged in on the next listing, so a burst of creates
// costs one sort rather than one shifting insert each.
type keyOrder struct {
	sorted  []string
	pending []string
	// removed counts keys dropped from the store but still in sorted.
	removed int
}

func (o *keyOrder) add(key string) { o.pending = append(o.pending, key) }

// from returns the sorted keys starting at the first one under prefix that
// is greater than after (after may be empty).
func (o *keyOrder) from(prefix, after string) []string {
	o.merge()
	start := prefix
	if after > prefix {
		start = after + "\x00"
	}
	i := sort.SearchStrings(o.sorted, start)
	return o.sorted[i:]
}

func (o *keyOrder) merge() {
	if len(o.pending) == 0 {
		return
	}
	slices.Sort(o.pending)
	merged := make([]string, 0, len(o.sorted)+len(o.pending))
	a, b := o.sorted, o.pending
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			merged, a = append(merged, a[0]), a[1:]
		case a[0] > b[0]:
			merged, b = append(merged, b[0]), b[1:]
		default: // a key removed then created again
			merged, a, b = append(merged, a[0]), a[1:], b[1:]
			o.removed--
		}
	}
	merged = append(append(merged, a...), b...)
	o.sorted = slices.Compact(merged)
	o.pending = o.pending[:0]
}

// prune drops removed keys once they are a large share of the order.
func (o *keyOrder) prune(live map[string]*versions) {
	if o.removed < 1024 || o.removed < len(o.sorted)/4 {
		return
	}
	o.merge()
	kept := o.sorted[:0]
	for _, k := range o.sorted {
		if live[k] != nil {
			kept = append(kept, k)
		}
	}
	clear(o.sorted[len(kept):])
	o.sorted = kept
	o.removed = 0
}

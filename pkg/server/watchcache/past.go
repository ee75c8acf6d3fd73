package watchcache

import (
	"slices"
	"strings"
)

// listPast is ListAt for a revision some of the cache's events came
// after: each object those events touched is taken as it was before the
// first of them (absent, if that event added it), and objects they
// deleted are listed again. The caller holds c.mu and has checked that
// the log holds every event after at.
func (c *Cache) listPast(opts ListOptions, at int64) ListResult {
	log := c.events()
	past := map[string]*Object{} // the state at `at` of every key changed since; nil when absent
	for _, ev := range log[searchLog(log, at):] {
		k := ev.Object.Key
		if _, seen := past[k]; seen {
			continue
		}
		if ev.Type == Added {
			past[k] = nil
		} else {
			past[k] = ev.Prev
		}
	}
	// The keys of the state at `at` are the current ones, in order, and
	// the deleted ones, few, merged in.
	current := c.keys
	if current == nil {
		current = make([]string, 0, len(c.objects))
		for k := range c.objects {
			current = append(current, k)
		}
		slices.Sort(current)
	}
	var deleted []string
	for k, o := range past {
		if _, ok := c.objects[k]; !ok && o != nil {
			deleted = append(deleted, k)
		}
	}
	slices.Sort(deleted)
	start, end := c.bounds(opts)
	i, _ := slices.BinarySearch(current, start)
	j, _ := slices.BinarySearch(deleted, start)
	next := func() (string, bool) {
		var k string
		switch {
		case i < len(current) && (j >= len(deleted) || current[i] < deleted[j]):
			k = current[i]
			i++
		case j < len(deleted):
			k = deleted[j]
			j++
		default:
			return "", false
		}
		return k, strings.HasPrefix(k, end)
	}
	at0 := func(k string) *Object {
		if o, changed := past[k]; changed {
			return o
		}
		return c.objects[k]
	}
	res := ListResult{Revision: at}
	for k, ok := next(); ok; k, ok = next() {
		o := at0(k)
		if o == nil || (opts.Match != nil && !opts.Match(o)) {
			continue
		}
		if opts.Limit > 0 && len(res.Items) == opts.Limit {
			res.More = true
			if opts.Match == nil {
				for ; ok; k, ok = next() {
					if at0(k) != nil {
						res.Remaining++
					}
				}
			}
			break
		}
		res.Items = append(res.Items, o)
	}
	return res
}

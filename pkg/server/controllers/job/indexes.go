package job

import (
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// noIndex is the completion index of a pod that has none, or one that
// cannot be read.
const noIndex = -1

// Span is a run of completion indexes, First to Last inclusive.
type Span struct{ First, Last int }

// Indexes is a set of completion indexes as ordered, disjoint,
// non-adjacent spans: the form of status.completedIndexes
// ("1,3-5,7").
type Indexes []Span

// ParseIndexes reads an index list as kube writes it, ignoring indexes
// at or beyond completions and entries it cannot read.
func ParseIndexes(s string, completions int) Indexes {
	if s == "" {
		return nil
	}
	var out Indexes
	for _, part := range strings.Split(s, ",") {
		bounds := strings.Split(part, "-")
		first, err := strconv.Atoi(bounds[0])
		if err != nil {
			continue
		}
		if first >= completions {
			break
		}
		last := first
		if len(bounds) > 1 {
			if last, err = strconv.Atoi(bounds[1]); err != nil {
				continue
			}
			last = min(last, completions-1)
		}
		if n := len(out); n > 0 && out[n-1].Last == first-1 {
			out[n-1].Last = last
		} else {
			out = append(out, Span{first, last})
		}
	}
	return out
}

// String writes the set as kube does: two adjacent indexes as "a,b",
// longer runs as "a-b".
func (x Indexes) String() string {
	var b strings.Builder
	for _, s := range x {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s.First))
		switch {
		case s.Last == s.First+1:
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(s.Last))
		case s.Last > s.First:
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s.Last))
		}
	}
	return b.String()
}

// Len is how many indexes the set holds.
func (x Indexes) Len() int {
	n := 0
	for _, s := range x {
		n += s.Last - s.First + 1
	}
	return n
}

// Has reports whether ix is in the set.
func (x Indexes) Has(ix int) bool {
	i, _ := slices.BinarySearchFunc(x, ix, func(s Span, ix int) int { return s.Last - ix })
	return i < len(x) && x[i].First <= ix
}

// Union is the set of both.
func (x Indexes) Union(y Indexes) Indexes {
	all := append(slices.Clone(x), y...)
	slices.SortFunc(all, func(a, b Span) int { return a.First - b.First })
	var out Indexes
	for _, s := range all {
		if n := len(out); n > 0 && s.First <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, s.Last)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// With is the set plus the indexes given.
func (x Indexes) With(ixs ...int) Indexes {
	spans := make(Indexes, len(ixs))
	for i, ix := range ixs {
		spans[i] = Span{ix, ix}
	}
	return x.Union(spans)
}

// CompletionIndex is the index a pod's annotation gives it, or noIndex.
func CompletionIndex(pod *corev1.Pod) int {
	v, ok := pod.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return noIndex
	}
	ix, err := strconv.Atoi(v)
	if err != nil || ix < 0 {
		return noIndex
	}
	return ix
}

// indexesOf are the completion indexes of pods.
func indexesOf(pods []*corev1.Pod) []int {
	var out []int
	for _, p := range pods {
		if ix := CompletionIndex(p); ix != noIndex {
			out = append(out, ix)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// firstPending are the lowest count indexes below completions that no
// pod holds: neither succeeded, active, failed for good, nor (where
// only failed pods are replaced) held by a terminating pod.
func firstPending(taken Indexes, count, completions int) []int {
	var out []int
	next := 0
	for _, s := range taken {
		for ; next < completions && len(out) < count && next < s.First; next++ {
			out = append(out, next)
		}
		next = max(next, s.Last+1)
	}
	for ; next < completions && len(out) < count; next++ {
		out = append(out, next)
	}
	return out
}

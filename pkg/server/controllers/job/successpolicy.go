package job

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
)

// MatchSuccessPolicy reports whether an Indexed Job whose succeeded
// indexes are done meets a rule of its success policy, and the message
// of its SuccessCriteriaMet condition if so. A rule with
// succeededIndexes is met when all of them succeeded, or, with
// succeededCount, that many of them; a rule with only succeededCount
// when that many indexes succeeded.
func MatchSuccessPolicy(policy *batchv1.SuccessPolicy, completions int, done Indexes) (string, bool) {
	if policy == nil || len(done) == 0 {
		return "", false
	}
	for i, rule := range policy.Rules {
		met := false
		switch {
		case rule.SucceededIndexes != nil:
			want := ParseIndexes(*rule.SucceededIndexes, completions)
			if len(want) == 0 {
				continue
			}
			got := overlap(want, done)
			met = got == want.Len() || (rule.SucceededCount != nil && got >= int(*rule.SucceededCount))
		case rule.SucceededCount != nil:
			met = done.Len() >= int(*rule.SucceededCount)
		}
		if met {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}

// overlap is how many indexes both sets hold.
func overlap(a, b Indexes) int {
	n := 0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if lo, hi := max(a[i].First, b[j].First), min(a[i].Last, b[j].Last); hi >= lo {
			n += hi - lo + 1
		}
		if a[i].Last < b[j].Last {
			i++
		} else {
			j++
		}
	}
	return n
}

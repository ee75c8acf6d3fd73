package placement

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNoNodes: the cluster has no nodes at all. kube-scheduler reports it
// with this message and reason SchedulerError, not Unschedulable.
var ErrNoNodes = errors.New("no nodes available to schedule pods")

// FitError says why no node took the pod: each node's failing filter,
// and what the preemption dry run found.
type FitError struct {
	NumAllNodes int
	// Statuses holds a status per node that failed a filter.
	Statuses map[string]*Status
	// Absent is the reason of the nodes without a status, which no
	// filter saw (the pod's node affinity named other nodes).
	Absent string
	// PreFilterMsg is why the pod fits no node at all, found before
	// looking at any (conflicting node affinity terms); it replaces the
	// reasons per node.
	PreFilterMsg string
	// PostFilterMsg is the preemption's part of the message, or empty.
	PostFilterMsg string
}

// Error is kube-scheduler's message: "0/N nodes are available:", then
// "count reason" for every reason, sorted as strings and joined by
// ", ", then the preemption's message.
func (e *FitError) Error() string {
	var msg string
	if e.PreFilterMsg != "" {
		msg = histogram(e.NumAllNodes, nil, "") + " " + e.PreFilterMsg + "."
	} else {
		msg = histogram(e.NumAllNodes, e.Statuses, e.Absent)
	}
	if e.PostFilterMsg != "" {
		msg += " " + e.PostFilterMsg
	}
	return msg
}

// histogram formats "0/N nodes are available: 2 reason, 1 reason." Nodes
// without a status count under absent, when it is set.
func histogram(all int, statuses map[string]*Status, absent string) string {
	counts := map[string]int{}
	for _, st := range statuses {
		for _, r := range st.Reasons {
			counts[r]++
		}
	}
	if absent != "" && len(statuses) < all {
		counts[absent] += all - len(statuses)
	}
	parts := make([]string, 0, len(counts))
	for r, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available:", all)
	if len(parts) > 0 {
		msg += " " + strings.Join(parts, ", ") + "."
	}
	return msg
}

package podgc

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Quarantine remembers since when each node that pods are bound to has
// been missing from the informer. An informer may lag behind a node just
// registered, so a missing node is only suspected after the quarantine
// time, and then checked with the server.
type Quarantine struct {
	since map[string]time.Time
}

// Observe notes the nodes pods are bound to that nodes lacks, at now,
// and returns those missing for at least wait, sorted: the suspects to
// check. A node that showed up again, or that no pod is bound to any
// more, leaves quarantine.
func (q *Quarantine) Observe(pods []*corev1.Pod, nodes []*corev1.Node, now time.Time, wait time.Duration) []string {
	if q.since == nil {
		q.since = map[string]time.Time{}
	}
	existing := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		existing[n.Name] = true
	}
	missing := map[string]bool{}
	for _, p := range pods {
		if name := p.Spec.NodeName; name != "" && !existing[name] {
			missing[name] = true
			if _, ok := q.since[name]; !ok {
				q.since[name] = now
			}
		}
	}
	var due []string
	for name, since := range q.since {
		switch {
		case !missing[name]:
			delete(q.since, name)
		case now.Sub(since) >= wait:
			due = append(due, name)
		}
	}
	slices.Sort(due)
	return due
}

// Checked takes a suspect out of quarantine once the server was asked
// about it: were it still missing at the next look, it waits again, as
// kube's collector re-queues it.
func (q *Quarantine) Checked(name string) { delete(q.since, name) }

package cache

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func st(name, rv string) stored[*corev1.ConfigMap] {
	return stored[*corev1.ConfigMap]{obj: cm("", name, rv)}
}

func add(name, rv string) notification[*corev1.ConfigMap] {
	return notification[*corev1.ConfigMap]{kind: kindAdd, new: st(name, rv)}
}

func initialAdd(name, rv string) notification[*corev1.ConfigMap] {
	n := add(name, rv)
	n.initial = true
	return n
}

func upd(name, oldRV, newRV string) notification[*corev1.ConfigMap] {
	return notification[*corev1.ConfigMap]{kind: kindUpdate, old: st(name, oldRV), new: st(name, newRV)}
}

func resync(name, rv string) notification[*corev1.ConfigMap] {
	s := st(name, rv)
	return notification[*corev1.ConfigMap]{kind: kindUpdate, old: s, new: s, resync: true}
}

func del(name, rv string) notification[*corev1.ConfigMap] {
	return notification[*corev1.ConfigMap]{kind: kindDelete, old: st(name, rv)}
}

func (n notification[T]) String() string {
	switch n.kind {
	case kindAdd:
		s := "add " + Key(n.new.obj) + "@" + n.new.obj.GetResourceVersion()
		if n.initial {
			s += " initial"
		}
		return s
	case kindUpdate:
		return fmt.Sprintf("update %s@%s->%s", Key(n.new.obj), n.old.obj.GetResourceVersion(), n.new.obj.GetResourceVersion())
	case kindDelete:
		return "delete " + Key(n.old.obj) + "@" + n.old.obj.GetResourceVersion()
	}
	return "none"
}

func TestCoalescer(t *testing.T) {
	type N = notification[*corev1.ConfigMap]
	tests := []struct {
		name        string
		push        []N
		want        []string
		wantPending int
		wantInitial int
	}{
		{"distinct keys keep their order",
			[]N{add("a", "1"), add("b", "2"), upd("a", "1", "3")},
			[]string{"add a@3", "add b@2"}, 2, 0},
		{"many updates are one, old is what the handler last saw",
			[]N{upd("a", "1", "2"), upd("a", "2", "3"), upd("a", "3", "4")},
			[]string{"update a@1->4"}, 1, 0},
		{"a busy key keeps its place",
			[]N{upd("a", "1", "2"), upd("b", "1", "2"), upd("a", "2", "3")},
			[]string{"update a@1->3", "update b@1->2"}, 2, 0},
		{"add then updates is an add of the latest",
			[]N{initialAdd("a", "1"), upd("a", "1", "2")},
			[]string{"add a@2 initial"}, 1, 1},
		{"add then delete is nothing",
			[]N{initialAdd("a", "1"), upd("a", "1", "2"), del("a", "3"), add("b", "1")},
			[]string{"add b@1"}, 1, 0},
		{"update then delete is the delete",
			[]N{upd("a", "1", "2"), del("a", "3")},
			[]string{"delete a@3"}, 1, 0},
		{"delete then add is both, in order",
			[]N{del("a", "1"), add("a", "2"), upd("a", "2", "3")},
			[]string{"delete a@1", "add a@3"}, 2, 0},
		{"delete, add, delete is the first delete",
			[]N{upd("a", "1", "2"), del("a", "3"), add("a", "4"), del("a", "5")},
			[]string{"delete a@3"}, 1, 0},
		{"resync over a pending change adds nothing",
			[]N{upd("a", "1", "2"), resync("a", "2"), resync("b", "1")},
			[]string{"update a@1->2", "update b@1->1"}, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c coalescer[*corev1.ConfigMap]
			for _, n := range tt.push {
				c.push(n.key(), n)
			}
			if c.count != tt.wantPending {
				t.Errorf("pending %d, want %d", c.count, tt.wantPending)
			}
			if c.initial != tt.wantInitial {
				t.Errorf("initial %d, want %d", c.initial, tt.wantInitial)
			}
			var got []string
			for {
				p, ok := c.pop()
				if !ok {
					break
				}
				for _, n := range []N{p.del, p.op} {
					if n.kind != kindNone {
						got = append(got, n.String())
					}
				}
			}
			eq(t, "delivered", got, tt.want)
			if c.count != 0 || c.head != nil || c.tail != nil || len(c.byKey) != 0 {
				t.Errorf("not empty after draining: %+v", c)
			}
		})
	}
}

func (n notification[T]) key() string {
	if n.kind == kindDelete {
		return Key(n.old.obj)
	}
	return Key(n.new.obj)
}

// A slow handler's backlog is bounded by keys, not events.
func TestCoalescerBoundedByKeys(t *testing.T) {
	var c coalescer[*corev1.ConfigMap]
	for i := range 10000 {
		name := fmt.Sprintf("k%d", i%10)
		c.push(name, upd(name, fmt.Sprint(i), fmt.Sprint(i+1)))
	}
	if c.count != 10 || len(c.byKey) != 10 {
		t.Errorf("10,000 updates of 10 keys: %d pending in %d keys, want 10", c.count, len(c.byKey))
	}
}

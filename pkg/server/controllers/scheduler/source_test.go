package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestFeedPods: which pod events queue a pod, and what the view counts.
func TestFeedPods(t *testing.T) {
	tests := []struct {
		name       string
		old, new   *corev1.Pod
		wantQueued []string
		wantOnNode bool
	}{
		{name: "new pending pod", new: pod("a", "1"), wantQueued: []string{"default/a"}},
		{name: "another scheduler's pod", new: func() *corev1.Pod { p := pod("a", "1"); p.Spec.SchedulerName = "other"; return p }()},
		{name: "status-only update", old: pod("a", "1"), new: func() *corev1.Pod {
			p := pod("a", "1")
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}
			return p
		}()},
		{name: "labels changed", old: pod("a", "1"), new: func() *corev1.Pod { p := pod("a", "1"); p.Labels = map[string]string{"x": "y"}; return p }(),
			wantQueued: []string{"default/a"}},
		{name: "gated", new: func() *corev1.Pod {
			p := pod("a", "1")
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/wait"}}
			return p
		}()},
		{name: "last gate removed", old: func() *corev1.Pod {
			p := pod("a", "1")
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/wait"}}
			return p
		}(), new: pod("a", "1"), wantQueued: []string{"default/a"}},
		{name: "pod with nodeName counts, not scheduled", new: bound(pod("a", "1"), "n1"), wantOnNode: true},
		{name: "being deleted", new: func() *corev1.Pod { p := pod("a", "1"); p.DeletionTimestamp = &metav1.Time{}; return p }()},
		{name: "finished pods hold nothing", new: func() *corev1.Pod { p := bound(pod("a", "1"), "n1"); p.Status.Phase = corev1.PodSucceeded; return p }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness()
			h.r.view.setNode(node("n1", "4"))
			if tt.old != nil {
				h.event(tt.old)
				h.queue.take()
			}
			h.event(tt.new)
			if got := h.queue.take(); !slices.Equal(got, tt.wantQueued) {
				t.Errorf("queued %q, want %q", got, tt.wantQueued)
			}
			if _, got := h.r.view.onNode[tt.new.UID]; got != tt.wantOnNode {
				t.Errorf("counted on a node: got %v, want %v", got, tt.wantOnNode)
			}
		})
	}
}

// TestRetryOnChange: pods that did not fit are queued again when a node
// changes in a way the filters read or a bound pod goes; heartbeats do
// not count.
func TestRetryOnChange(t *testing.T) {
	h := newHarness()
	n := node("n1", "1")
	h.r.view.setNode(n)
	big := pod("big", "2")
	h.event(big)
	h.queue.take()
	if _, err := h.reconcile("big"); err != nil {
		t.Fatal(err)
	}
	h.queue.take() // the status write's echo queues nothing, checked above

	heartbeat := n.DeepCopy()
	heartbeat.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if nodeChanged(n, heartbeat) {
		t.Errorf("a heartbeat counts as a change")
	}
	grown := n.DeepCopy()
	grown.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("4")
	if !nodeChanged(n, grown) {
		t.Errorf("new allocatable does not count as a change")
	}
	h.feed.retry(h.queue, "update", grown)
	if got := h.queue.take(); !slices.Equal(got, []string{"default/big"}) {
		t.Errorf("after a node change queued %q", got)
	}
	h.r.view.setNode(grown)
	h.clock.Step(h.r.opts.InitialBackoff)
	if _, err := h.reconcile("big"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"default/big->Node n1"}; !slices.Equal(h.api.bindings, want) {
		t.Errorf("bindings after the node grew: got %q, want %q", h.api.bindings, want)
	}

	// A bound pod that goes away frees room and retries the waiting.
	other := pod("other", "3")
	h.event(other)
	if _, err := h.reconcile("other"); err != nil {
		t.Fatal(err)
	}
	h.queue.take()
	gone := bound(pod("big", "2"), "n1")
	h.event(gone) // the watch confirms the binding
	h.queue.take()
	finished := gone.DeepCopy()
	finished.Status.Phase = corev1.PodSucceeded
	h.event(finished)
	if got := h.queue.take(); !slices.Equal(got, []string{"default/other"}) {
		t.Errorf("after a pod finished queued %q, want default/other", got)
	}
	h.clock.Step(h.r.opts.InitialBackoff)
	if _, err := h.reconcile("other"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"default/big->Node n1", "default/other->Node n1"}; !slices.Equal(h.api.bindings, want) {
		t.Errorf("bindings: got %q, want %q", h.api.bindings, want)
	}
}

func bound(p *corev1.Pod, n string) *corev1.Pod { p.Spec.NodeName = n; return p }

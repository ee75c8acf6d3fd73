package scheduler

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// TestReconcile: each pod in turn is bound or reported, each decision
// seeing the pods bound before it, before any watch confirms them.
func TestReconcile(t *testing.T) {
	conflict := &client.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusConflict, Reason: metav1.StatusReasonConflict}}
	tests := []struct {
		name         string
		nodes        []*corev1.Node
		pods         []*corev1.Pod
		bindErr      error
		wantBindings []string
		wantEvents   []string
		wantCond     []string // "reason: message" of each status write
		wantErr      bool
	}{
		{
			name:         "pods fill the nodes in turn",
			nodes:        []*corev1.Node{node("n1", "2"), node("n2", "2")},
			pods:         []*corev1.Pod{pod("a", "1500m"), pod("b", "1500m"), pod("c", "1500m")},
			wantBindings: []string{"default/a->Node n1", "default/b->Node n2"},
			wantEvents: []string{
				"Normal Scheduled Successfully assigned default/a to n1",
				"Normal Scheduled Successfully assigned default/b to n2",
				"Warning FailedScheduling 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
			},
			wantCond: []string{"Unschedulable: 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."},
		},
		{
			name:       "no nodes",
			pods:       []*corev1.Pod{pod("a", "1")},
			wantEvents: []string{"Warning FailedScheduling no nodes available to schedule pods"},
			wantCond:   []string{"SchedulerError: no nodes available to schedule pods"},
		},
		{
			name:    "bound by someone else",
			nodes:   []*corev1.Node{node("n1", "2")},
			pods:    []*corev1.Pod{pod("a", "1500m"), pod("b", "1500m")},
			bindErr: conflict,
			wantErr: true,
			// Neither binding took, so neither pod holds room: no failure.
		},
		{
			name:    "server error",
			nodes:   []*corev1.Node{node("n1", "2")},
			pods:    []*corev1.Pod{pod("a", "1")},
			bindErr: errors.New("connection refused"),
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness()
			h.api.bindErr = tt.bindErr
			for _, n := range tt.nodes {
				h.r.view.setNode(n)
			}
			var gotErr error
			for _, p := range tt.pods {
				h.event(p)
				if _, err := h.reconcile(p.Name); err != nil {
					gotErr = err
				}
			}
			if (gotErr != nil) != tt.wantErr {
				t.Errorf("error: got %v, want error %v", gotErr, tt.wantErr)
			}
			var be *BindError
			if tt.wantErr && !errors.As(gotErr, &be) {
				t.Errorf("error %v is not a *BindError", gotErr)
			}
			if !slices.Equal(h.api.bindings, tt.wantBindings) {
				t.Errorf("bindings:\ngot  %q\nwant %q", h.api.bindings, tt.wantBindings)
			}
			if !slices.Equal(h.events.got, tt.wantEvents) {
				t.Errorf("events:\ngot  %q\nwant %q", h.events.got, tt.wantEvents)
			}
			var conds []string
			for _, p := range h.api.statuses {
				for _, c := range p.Status.Conditions {
					if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.LastTransitionTime.Time.Equal(epoch) {
						conds = append(conds, c.Reason+": "+c.Message)
					}
				}
			}
			if !slices.Equal(conds, tt.wantCond) {
				t.Errorf("conditions:\ngot  %q\nwant %q", conds, tt.wantCond)
			}
			if tt.bindErr != nil && len(h.r.view.onNode) != 0 {
				t.Errorf("a refused binding is still assumed: %v", h.r.view.onNode)
			}
		})
	}
}

// TestBackoff: a pod that did not fit waits 1 s, then 2 s, ... up to
// 10 s between attempts, however often it is queued.
func TestBackoff(t *testing.T) {
	h := newHarness()
	h.r.view.setNode(node("n1", "1"))
	h.event(pod("big", "2"))
	steps := []struct {
		advance      time.Duration
		wantRequeue  time.Duration
		wantAttempts int
	}{
		{0, 5 * time.Minute, 1},
		{0, time.Second, 1},
		{999 * time.Millisecond, time.Millisecond, 1},
		{time.Millisecond, 5 * time.Minute, 2},
		{time.Second, time.Second, 2},
		{time.Second, 5 * time.Minute, 3},
		{3 * time.Second, time.Second, 3},
	}
	for i, s := range steps {
		h.clock.Step(s.advance)
		res, err := h.reconcile("big")
		if err != nil {
			t.Fatal(err)
		}
		f, _ := h.r.view.failure(keyOf(pod("big", "2")), "uid-big")
		if res.RequeueAfter != s.wantRequeue || f.attempts != s.wantAttempts {
			t.Errorf("step %d: requeue %v after %d attempts, want %v after %d", i, res.RequeueAfter, f.attempts, s.wantRequeue, s.wantAttempts)
		}
	}
	// The condition was written once: later attempts changed nothing.
	if len(h.api.statuses) != 1 {
		t.Errorf("status writes: got %d, want 1", len(h.api.statuses))
	}
	if got := len(h.events.got); got != 3 {
		t.Errorf("FailedScheduling events: got %d, want one per attempt (3)", got)
	}
}

func TestMaxBackoff(t *testing.T) {
	h := newHarness()
	for attempts, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 30: 10 * time.Second} {
		key := keyOf(pod("p", "1"))
		h.r.view.failures[key] = &failure{uid: "uid-p", attempts: attempts, last: h.clock.Now()}
		if got := h.r.backoffLeft(pod("p", "1")); got != want {
			t.Errorf("after %d attempts: got %v, want %v", attempts, got, want)
		}
	}
}

func TestWithCondition(t *testing.T) {
	earlier := metav1.NewTime(epoch.Add(-time.Hour))
	now := epoch
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "m"}
	tests := []struct {
		name        string
		have        []corev1.PodCondition
		wantChanged bool
		wantLTT     metav1.Time
	}{
		{"new", nil, true, metav1.NewTime(now)},
		{"same", []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "m", LastTransitionTime: earlier}}, false, earlier},
		{"new message keeps the transition time", []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "old", LastTransitionTime: earlier}}, true, earlier},
		{"status flips", []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: earlier}}, true, metav1.NewTime(now)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("p", "1")
			p.Status.Conditions = tt.have
			got, changed := withCondition(p, cond, now)
			if changed != tt.wantChanged {
				t.Fatalf("changed: got %v, want %v", changed, tt.wantChanged)
			}
			c := got.Status.Conditions[len(got.Status.Conditions)-1]
			if !c.LastTransitionTime.Equal(&tt.wantLTT) || c.Message != "m" {
				t.Errorf("condition %+v, want message m at %v", c, tt.wantLTT)
			}
			if changed && len(p.Status.Conditions) == len(tt.have) && len(tt.have) > 0 && p.Status.Conditions[0].Message == "m" && tt.have[0].Message != "m" {
				t.Errorf("the cache's pod was modified")
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("x", 2000)
	if got := truncate(long); len(got) != eventNoteLimit || !strings.HasSuffix(got, " ...") {
		t.Errorf("truncate: got %d chars ending %q", len(got), got[len(got)-4:])
	}
	if got := truncate("short"); got != "short" {
		t.Errorf("truncate(short) = %q", got)
	}
}

// TestReconcileSkips: pods the scheduler does not take, or has bound
// already while the cache lags, get no second binding.
func TestReconcileSkips(t *testing.T) {
	h := newHarness()
	h.r.view.setNode(node("n1", "4"))
	a := pod("a", "1")
	h.event(a)
	if _, err := h.reconcile("a"); err != nil {
		t.Fatal(err)
	}
	// The cache still shows a unbound; a second request comes.
	if _, err := h.reconcile("a"); err != nil {
		t.Fatal(err)
	}
	other := pod("other", "1")
	other.Spec.SchedulerName = "my-scheduler"
	h.event(other)
	gated := pod("gated", "1")
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}}
	h.event(gated)
	for _, name := range []string{"other", "gated", "missing"} {
		if _, err := h.reconcile(name); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"default/a->Node n1"}; !slices.Equal(h.api.bindings, want) {
		t.Errorf("bindings: got %q, want %q", h.api.bindings, want)
	}
}

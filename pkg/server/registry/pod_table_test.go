package registry

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestPodTableCells(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	waiting := func(r string) corev1.ContainerState {
		return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: r}}
	}
	terminated := func(code int32, reason string) corev1.ContainerState {
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason}}
	}
	ready := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue}
	tests := []struct {
		name     string
		pod      func(*corev1.Pod)
		ready    string
		status   string
		restarts string
		wide     []any // IP, Node, Nominated Node, Readiness Gates
	}{
		{name: "pending", pod: func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending },
			ready: "0/2", status: "Pending", restarts: "0", wide: []any{"<none>", "<none>", "<none>", "<none>"}},
		{name: "creating", pod: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a", State: waiting("ContainerCreating")}, {Name: "b", State: waiting("ContainerCreating")}}
		}, ready: "0/2", status: "ContainerCreating", restarts: "0"},
		{name: "running, one ready", pod: func(p *corev1.Pod) {
			p.Spec.NodeName = "n1"
			p.Status.Phase = corev1.PodRunning
			p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.5"}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a", Ready: true, State: running}, {Name: "b", State: running}}
		}, ready: "1/2", status: "Running", restarts: "0", wide: []any{"10.0.0.5", "n1", "<none>", "<none>"}},
		{name: "crash loop with last restart", pod: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.ContainerStatuses = []corev1.ContainerStatus{
				{Name: "a", Ready: true, State: running},
				{Name: "b", State: waiting("CrashLoopBackOff"), RestartCount: 4, LastTerminationState: corev1.ContainerState{
					Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: metav1.NewTime(now.Add(-5 * time.Minute))}}},
			}
		}, ready: "1/2", status: "CrashLoopBackOff", restarts: "4 (5m ago)"},
		{name: "completed", pod: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodSucceeded
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a", State: terminated(0, "Completed")}, {Name: "b", State: terminated(0, "Completed")}}
		}, ready: "0/2", status: "Completed", restarts: "0"},
		{name: "completed beside a running one, ready", pod: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{ready}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a", Ready: true, State: running}, {Name: "b", State: terminated(0, "Completed")}}
		}, ready: "1/2", status: "Running", restarts: "0"},
		{name: "completed beside a running one, not ready", pod: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodRunning
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a", Ready: true, State: running}, {Name: "b", State: terminated(0, "Completed")}}
		}, ready: "1/2", status: "NotReady", restarts: "0"},
		{name: "exit code without reason", pod: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a", State: terminated(3, "")}}
		}, ready: "0/2", status: "ExitCode:3", restarts: "0"},
		{name: "initializing", pod: func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "i1"}, {Name: "i2"}}
			p.Status.Phase = corev1.PodPending
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "i1", State: terminated(0, "Completed")}, {Name: "i2", State: running}}
		}, ready: "0/2", status: "Init:1/2", restarts: "0"},
		{name: "init crash", pod: func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "i1"}}
			p.Status.Phase = corev1.PodPending
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "i1", State: waiting("CrashLoopBackOff"), RestartCount: 2}}
		}, ready: "0/2", status: "Init:CrashLoopBackOff", restarts: "2"},
		{name: "sidecar counts as a container", pod: func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "side", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
			p.Status.Phase = corev1.PodRunning
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "side", Ready: true, Started: ptr.To(true), State: running}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a", Ready: true, State: running}, {Name: "b", Ready: true, State: running}}
		}, ready: "3/3", status: "Running", restarts: "0"},
		{name: "terminating", pod: func(p *corev1.Pod) {
			p.DeletionTimestamp = &metav1.Time{Time: now}
			p.Status.Phase = corev1.PodRunning
		}, ready: "0/2", status: "Terminating", restarts: "0"},
		{name: "deleted on a lost node", pod: func(p *corev1.Pod) {
			p.DeletionTimestamp = &metav1.Time{Time: now}
			p.Status.Phase = corev1.PodRunning
			p.Status.Reason = "NodeLost"
		}, ready: "0/2", status: "Unknown", restarts: "0"},
		{name: "evicted", pod: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			p.Status.Reason = "Evicted"
		}, ready: "0/2", status: "Evicted", restarts: "0"},
		{name: "scheduling gated", pod: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: "False", Reason: "SchedulingGated"}}
		}, ready: "0/2", status: "SchedulingGated", restarts: "0"},
		{name: "readiness gates", pod: func(p *corev1.Pod) {
			p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "lb"}, {ConditionType: "dns"}}
			p.Status.NominatedNodeName = "n2"
			p.Status.Conditions = []corev1.PodCondition{{Type: "lb", Status: corev1.ConditionTrue}}
		}, ready: "0/2", status: "", restarts: "0", wide: []any{"<none>", "<none>", "n2", "1/2"}},
	}
	cols := builtin("", "pods").Columns
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}}}
			tt.pod(pod)
			obj := asDecoded(t, pod)
			var got []any
			for _, c := range cols {
				if v, ok := c.Cell(obj, now); ok {
					got = append(got, v)
				}
			}
			want := []any{tt.ready, tt.status, tt.restarts}
			if len(got) != 7 {
				t.Fatalf("got %d computed cells, want 7", len(got))
			}
			for i, w := range want {
				if got[i] != w {
					t.Errorf("%s: got %q, want %q", cols[i].Name, got[i], w)
				}
			}
			for i, w := range tt.wide {
				if got[3+i] != w {
					t.Errorf("wide %d: got %q, want %q", i, got[3+i], w)
				}
			}
		})
	}
}

func TestPodColumnsOrder(t *testing.T) {
	var got []string
	for _, c := range builtin("", "pods").Columns {
		if c.Priority == 1 {
			got = append(got, "wide:"+c.Name)
		} else {
			got = append(got, c.Name)
		}
	}
	want := []string{"Ready", "Status", "Restarts", "Age", "wide:IP", "wide:Node", "wide:Nominated Node", "wide:Readiness Gates"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
			break
		}
	}
}

func TestPodTemplateCells(t *testing.T) {
	tmpl := &corev1.PodTemplate{Template: corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"b": "2", "a": "1"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}, {Name: "log", Image: "fluentd:1"}}},
	}}
	obj := asDecoded(t, tmpl)
	var got []any
	for _, c := range builtin("", "podtemplates").Columns {
		v, _ := c.Cell(obj, time.Time{})
		got = append(got, v)
	}
	want := []any{"web,log", "nginx,fluentd:1", "a=1,b=2"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("column %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

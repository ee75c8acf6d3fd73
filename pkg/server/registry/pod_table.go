package registry

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"
)

// podColumns are kube's pod table columns after Name, as kubectl get
// pods prints them; the last four show with -o wide.
func podColumns() []Column {
	return []Column{
		{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic.",
			Value: podCell(func(r podRow) any { return r.ready })},
		{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod.",
			Value: podCell(func(r podRow) any { return r.status })},
		{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
			Value: podCell(func(r podRow) any { return r.restarts(time.Time{}) }),
			ValueAt: func(obj map[string]any, now time.Time) any {
				return podRowOf(obj).restarts(now)
			}},
		{Name: "Age", Type: "string", Path: ".metadata.creationTimestamp",
			Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		{Name: "IP", Type: "string", Priority: 1, Description: corev1.PodStatus{}.SwaggerDoc()["podIP"],
			Value: podCell(func(r podRow) any { return r.ip })},
		{Name: "Node", Type: "string", Priority: 1, Description: corev1.PodSpec{}.SwaggerDoc()["nodeName"],
			Value: podCell(func(r podRow) any { return orNone(r.pod.Spec.NodeName) })},
		{Name: "Nominated Node", Type: "string", Priority: 1, Description: corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"],
			Value: podCell(func(r podRow) any { return orNone(r.pod.Status.NominatedNodeName) })},
		{Name: "Readiness Gates", Type: "string", Priority: 1, Description: corev1.PodSpec{}.SwaggerDoc()["readinessGates"],
			Value: podCell(func(r podRow) any { return r.gates })},
	}
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func podCell(f func(podRow) any) func(map[string]any) any {
	return func(obj map[string]any) any { return f(podRowOf(obj)) }
}

// podRow is a pod's table row as kubectl computes it.
type podRow struct {
	pod         corev1.Pod
	ready       string
	status      string
	restartN    int32
	lastRestart time.Time
	ip          string
	gates       string
}

// restarts is the Restarts cell: the count, and how long ago the last
// one ended when kube knows.
func (r podRow) restarts(now time.Time) string {
	if r.restartN == 0 || r.lastRestart.IsZero() || now.IsZero() {
		return fmt.Sprint(r.restartN)
	}
	return fmt.Sprintf("%d (%s ago)", r.restartN, duration.HumanDuration(now.Sub(r.lastRestart)))
}

func podRowOf(obj map[string]any) podRow {
	var r podRow
	_ = toTyped(obj, &r.pod)
	pod := &r.pod
	st := &pod.Status
	total := len(pod.Spec.Containers)
	readyN := 0
	reason := string(st.Phase)
	if st.Reason != "" {
		reason = st.Reason
	}
	for _, c := range st.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			reason = corev1.PodReasonSchedulingGated
		}
	}
	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
			total++
		}
	}
	var restarts, sidecarRestarts int32
	var last, sidecarLast time.Time
	later := func(t *time.Time, s corev1.ContainerStatus) {
		if term := s.LastTerminationState.Terminated; term != nil && term.FinishedAt.After(*t) {
			*t = term.FinishedAt.Time
		}
	}
	initializing := false
	for i, s := range st.InitContainerStatuses {
		restarts += s.RestartCount
		later(&last, s)
		if sidecars[s.Name] {
			sidecarRestarts += s.RestartCount
			later(&sidecarLast, s)
		}
		term, wait := s.State.Terminated, s.State.Waiting
		switch {
		case term != nil && term.ExitCode == 0:
			continue
		case sidecars[s.Name] && s.Started != nil && *s.Started:
			if s.Ready {
				readyN++
			}
			continue
		case term != nil:
			switch {
			case term.Reason != "":
				reason = "Init:" + term.Reason
			case term.Signal != 0:
				reason = fmt.Sprintf("Init:Signal:%d", term.Signal)
			default:
				reason = fmt.Sprintf("Init:ExitCode:%d", term.ExitCode)
			}
		case wait != nil && wait.Reason != "" && wait.Reason != "PodInitializing":
			reason = "Init:" + wait.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}
	if !initializing || podCondition(st, corev1.PodInitialized) {
		restarts, last = sidecarRestarts, sidecarLast
		running := false
		for i := len(st.ContainerStatuses) - 1; i >= 0; i-- {
			s := st.ContainerStatuses[i]
			restarts += s.RestartCount
			later(&last, s)
			term, wait := s.State.Terminated, s.State.Waiting
			switch {
			case wait != nil && wait.Reason != "":
				reason = wait.Reason
			case term != nil && term.Reason != "":
				reason = term.Reason
			case term != nil && term.Signal != 0:
				reason = fmt.Sprintf("Signal:%d", term.Signal)
			case term != nil:
				reason = fmt.Sprintf("ExitCode:%d", term.ExitCode)
			case s.Ready && s.State.Running != nil:
				running = true
				readyN++
			}
		}
		// A container still running keeps a pod with a completed one
		// Running (or NotReady).
		if reason == "Completed" && running {
			reason = "NotReady"
			if podCondition(st, corev1.PodReady) {
				reason = "Running"
			}
		}
	}
	terminal := st.Phase == corev1.PodSucceeded || st.Phase == corev1.PodFailed
	switch {
	case pod.DeletionTimestamp != nil && st.Reason == "NodeLost":
		reason = "Unknown"
	case pod.DeletionTimestamp != nil && !terminal:
		reason = "Terminating"
	}
	r.ready = fmt.Sprintf("%d/%d", readyN, total)
	r.status = reason
	r.restartN, r.lastRestart = restarts, last
	r.ip = "<none>"
	if len(st.PodIPs) > 0 && st.PodIPs[0].IP != "" {
		r.ip = st.PodIPs[0].IP
	}
	r.gates = "<none>"
	if n := len(pod.Spec.ReadinessGates); n > 0 {
		met := 0
		for _, g := range pod.Spec.ReadinessGates {
			for _, c := range st.Conditions {
				if c.Type == g.ConditionType {
					if c.Status == corev1.ConditionTrue {
						met++
					}
					break
				}
			}
		}
		r.gates = fmt.Sprintf("%d/%d", met, n)
	}
	return r
}

func podCondition(st *corev1.PodStatus, t corev1.PodConditionType) bool {
	for _, c := range st.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podTemplateColumns are kube's: the containers' names and images, and
// the template's labels.
func podTemplateColumns() []Column {
	containers := func(obj map[string]any) []corev1.Container {
		var t corev1.PodTemplate
		_ = toTyped(obj, &t)
		return t.Template.Spec.Containers
	}
	join := func(f func(corev1.Container) string) func(map[string]any) any {
		return func(obj map[string]any) any {
			var parts []string
			for _, c := range containers(obj) {
				parts = append(parts, f(c))
			}
			return strings.Join(parts, ",")
		}
	}
	return []Column{
		{Name: "Containers", Type: "string", Description: "Names of each container in the template.",
			Value: join(func(c corev1.Container) string { return c.Name })},
		{Name: "Images", Type: "string", Description: "Images referenced by each container in the template.",
			Value: join(func(c corev1.Container) string { return c.Image })},
		{Name: "Pod Labels", Type: "string", Description: "The labels for the pod template.",
			Value: func(obj map[string]any) any {
				var t corev1.PodTemplate
				_ = toTyped(obj, &t)
				return labels.FormatLabels(t.Template.Labels)
			}},
	}
}

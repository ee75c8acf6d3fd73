package nodeagent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testPod(mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-1"},
		Spec: corev1.PodSpec{
			NodeName:      "node-0",
			RestartPolicy: corev1.RestartPolicyAlways,
			Containers:    []corev1.Container{{Name: "app", Image: "nginx", ImagePullPolicy: corev1.PullIfNotPresent}},
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodPending,
			QOSClass:   corev1.PodQOSBestEffort,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)}},
		},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// summary is the part of a step a test compares.
type summary struct {
	Phase      corev1.PodPhase
	Conditions string // type=status(reason) in order
	Containers string // name:state/reason/exit restarts ready
	Wait       time.Duration
	Events     string // reasons in order
	Delete     bool
}

func summarize(s Step) summary {
	var conds, ctrs, evs []string
	for _, c := range s.Status.Conditions {
		e := fmt.Sprintf("%s=%s", c.Type, c.Status)
		if c.Reason != "" {
			e += "(" + c.Reason + ")"
		}
		conds = append(conds, e)
	}
	for _, list := range [][]corev1.ContainerStatus{s.Status.InitContainerStatuses, s.Status.ContainerStatuses} {
		for _, cs := range list {
			st := "?"
			switch {
			case cs.State.Running != nil:
				st = "running"
			case cs.State.Terminated != nil:
				st = fmt.Sprintf("terminated/%s/%d", cs.State.Terminated.Reason, cs.State.Terminated.ExitCode)
			case cs.State.Waiting != nil:
				st = "waiting/" + cs.State.Waiting.Reason
			}
			ctrs = append(ctrs, fmt.Sprintf("%s:%s r%d ready=%t", cs.Name, st, cs.RestartCount, cs.Ready))
		}
	}
	for _, e := range s.Events {
		evs = append(evs, e.Reason)
	}
	return summary{Phase: s.Status.Phase, Conditions: strings.Join(conds, " "), Containers: strings.Join(ctrs, "; "),
		Wait: s.Wait, Events: strings.Join(evs, ","), Delete: s.Delete}
}

const (
	allTrue      = "PodReadyToStartContainers=True Initialized=True Ready=True ContainersReady=True PodScheduled=True"
	notReady     = "PodReadyToStartContainers=True Initialized=True Ready=False(ContainersNotReady) ContainersReady=False(ContainersNotReady) PodScheduled=True"
	completed    = "PodReadyToStartContainers=False Initialized=True Ready=False(PodCompleted) ContainersReady=False(PodCompleted) PodScheduled=True"
	failedConds  = "PodReadyToStartContainers=False Initialized=True Ready=False(PodFailed) ContainersReady=False(PodFailed) PodScheduled=True"
	startEvents  = "Pulling,Pulled,Created,Started"
	secondsDelay = time.Second
)

func TestAdvance(t *testing.T) {
	annotate := func(kv ...string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Annotations = map[string]string{}
			for i := 0; i < len(kv); i += 2 {
				p.Annotations[kv[i]] = kv[i+1]
			}
		}
	}
	policy := func(r corev1.RestartPolicy) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Spec.RestartPolicy = r }
	}
	// Each case advances the pod at the given offsets from t0, feeding
	// each step's status to the next, and compares every step.
	type at struct {
		after time.Duration
		want  summary
	}
	tests := []struct {
		name  string
		pod   *corev1.Pod
		steps []at
	}{
		{
			name: "runs and is ready at once",
			pod:  testPod(),
			steps: []at{{0, summary{Phase: corev1.PodRunning, Conditions: allTrue,
				Containers: "app:running r0 ready=true", Events: startEvents}}},
		},
		{
			name: "readiness waits for the probe's initial delay",
			pod: testPod(func(p *corev1.Pod) {
				p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{InitialDelaySeconds: 5}
			}),
			steps: []at{
				{0, summary{Phase: corev1.PodRunning, Conditions: notReady, Containers: "app:running r0 ready=false", Wait: 5 * secondsDelay, Events: startEvents}},
				{3 * time.Second, summary{Phase: corev1.PodRunning, Conditions: notReady, Containers: "app:running r0 ready=false", Wait: 2 * secondsDelay}},
				{5 * time.Second, summary{Phase: corev1.PodRunning, Conditions: allTrue, Containers: "app:running r0 ready=true"}},
			},
		},
		{
			name: "init containers complete in order before the app starts",
			pod: testPod(func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "b-first", Image: "busybox"}, {Name: "a-second", Image: "busybox"}}
			}),
			steps: []at{{0, summary{Phase: corev1.PodRunning, Conditions: allTrue,
				Containers: "b-first:terminated/Completed/0 r0 ready=true; a-second:terminated/Completed/0 r0 ready=true; app:running r0 ready=true",
				Events:     startEvents + "," + startEvents + "," + startEvents}}},
		},
		{
			name: "a pod bound without the scheduler is marked scheduled",
			pod:  testPod(func(p *corev1.Pod) { p.Status.Conditions = nil }),
			steps: []at{{0, summary{Phase: corev1.PodRunning, Conditions: allTrue,
				Containers: "app:running r0 ready=true", Events: startEvents}}},
		},
		{
			name: "readiness gates hold Ready and keep their place first",
			pod: testPod(func(p *corev1.Pod) {
				p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}}
				p.Status.Conditions = append([]corev1.PodCondition{{Type: "example.com/lb", Status: corev1.ConditionFalse}}, p.Status.Conditions...)
			}),
			steps: []at{{0, summary{Phase: corev1.PodRunning,
				Conditions: "example.com/lb=False PodReadyToStartContainers=True Initialized=True Ready=False(ReadinessGatesNotReady) ContainersReady=True PodScheduled=True",
				Containers: "app:running r0 ready=true", Events: startEvents}}},
		},
		{
			name: "a sidecar starts before the app and keeps running",
			pod: testPod(func(p *corev1.Pod) {
				always := corev1.ContainerRestartPolicyAlways
				p.Spec.InitContainers = []corev1.Container{
					{Name: "proxy", Image: "envoy", RestartPolicy: &always, StartupProbe: &corev1.Probe{InitialDelaySeconds: 2}},
					{Name: "migrate", Image: "busybox"},
				}
			}),
			steps: []at{
				{0, summary{Phase: corev1.PodPending,
					Conditions: "PodReadyToStartContainers=True Initialized=False(ContainersNotInitialized) Ready=False(ContainersNotReady) ContainersReady=False(ContainersNotReady) PodScheduled=True",
					Containers: "proxy:running r0 ready=false; migrate:waiting/PodInitializing r0 ready=false; app:waiting/PodInitializing r0 ready=false",
					Wait:       2 * time.Second, Events: startEvents}},
				{2 * time.Second, summary{Phase: corev1.PodRunning, Conditions: allTrue,
					Containers: "proxy:running r0 ready=true; migrate:terminated/Completed/0 r0 ready=true; app:running r0 ready=true",
					Events:     startEvents + "," + startEvents}},
			},
		},
		{
			name: "never ready",
			pod:  testPod(annotate(AnnotationNeverReady, "true")),
			steps: []at{
				{0, summary{Phase: corev1.PodRunning, Conditions: notReady, Containers: "app:running r0 ready=false", Events: startEvents}},
				{time.Hour, summary{Phase: corev1.PodRunning, Conditions: notReady, Containers: "app:running r0 ready=false"}},
			},
		},
		{
			name: "exit 0 with restartPolicy Never succeeds",
			pod:  testPod(policy(corev1.RestartPolicyNever), annotate(AnnotationExitAfter, "10s")),
			steps: []at{
				{0, summary{Phase: corev1.PodRunning, Conditions: allTrue, Containers: "app:running r0 ready=true", Wait: 10 * time.Second, Events: startEvents}},
				{10 * time.Second, summary{Phase: corev1.PodSucceeded, Conditions: completed, Containers: "app:terminated/Completed/0 r0 ready=false"}},
				{time.Minute, summary{Phase: corev1.PodSucceeded, Conditions: completed, Containers: "app:terminated/Completed/0 r0 ready=false"}},
			},
		},
		{
			name: "exit 2 with restartPolicy Never fails",
			pod:  testPod(policy(corev1.RestartPolicyNever), annotate(AnnotationExitAfter, "1s", AnnotationExitCode, "2")),
			steps: []at{
				{0, summary{Phase: corev1.PodRunning, Conditions: allTrue, Containers: "app:running r0 ready=true", Wait: time.Second, Events: startEvents}},
				{time.Second, summary{Phase: corev1.PodFailed, Conditions: failedConds, Containers: "app:terminated/Error/2 r0 ready=false"}},
			},
		},
		{
			name: "OnFailure does not restart a success",
			pod:  testPod(policy(corev1.RestartPolicyOnFailure), annotate(AnnotationExitAfter, "1s")),
			steps: []at{
				{0, summary{Phase: corev1.PodRunning, Conditions: allTrue, Containers: "app:running r0 ready=true", Wait: time.Second, Events: startEvents}},
				{2 * time.Second, summary{Phase: corev1.PodSucceeded, Conditions: completed, Containers: "app:terminated/Completed/0 r0 ready=false"}},
			},
		},
		{
			name: "crash loop backs off 10s, 20s, 40s",
			pod:  testPod(annotate(AnnotationCrashLoop, "true")),
			steps: []at{
				// Exits at once, restarts at once, exits again: back-off.
				{0, summary{Phase: corev1.PodRunning, Conditions: notReady, Containers: "app:waiting/CrashLoopBackOff r1 ready=false",
					Wait: 10 * time.Second, Events: startEvents + ",Pulled,Created,Started,BackOff"}},
				{5 * time.Second, summary{Phase: corev1.PodRunning, Conditions: notReady, Containers: "app:waiting/CrashLoopBackOff r1 ready=false", Wait: 5 * time.Second}},
				{10 * time.Second, summary{Phase: corev1.PodRunning, Conditions: notReady, Containers: "app:waiting/CrashLoopBackOff r2 ready=false",
					Wait: 20 * time.Second, Events: "Pulled,Created,Started,BackOff"}},
				{30 * time.Second, summary{Phase: corev1.PodRunning, Conditions: notReady, Containers: "app:waiting/CrashLoopBackOff r3 ready=false",
					Wait: 40 * time.Second, Events: "Pulled,Created,Started,BackOff"}},
			},
		},
		{
			name: "OnFailure restarts a failure",
			pod:  testPod(policy(corev1.RestartPolicyOnFailure), annotate(AnnotationExitAfter, "1m", AnnotationExitCode, "1")),
			steps: []at{
				{0, summary{Phase: corev1.PodRunning, Conditions: allTrue, Containers: "app:running r0 ready=true", Wait: time.Minute, Events: startEvents}},
				{time.Minute, summary{Phase: corev1.PodRunning, Conditions: allTrue, Containers: "app:running r1 ready=true", Wait: time.Minute, Events: "Pulled,Created,Started"}},
				{2 * time.Minute, summary{Phase: corev1.PodRunning, Conditions: notReady, Containers: "app:waiting/CrashLoopBackOff r1 ready=false", Wait: 10 * time.Second, Events: "BackOff"}},
			},
		},
		{
			name: "image pull error backs off",
			pod:  testPod(annotate(AnnotationImagePullError, "true")),
			steps: []at{
				{0, summary{Phase: corev1.PodPending, Conditions: notReady, Containers: "app:waiting/ErrImagePull r0 ready=false", Wait: time.Second, Events: "Pulling,Failed,Failed"}},
				{time.Second, summary{Phase: corev1.PodPending, Conditions: notReady, Containers: "app:waiting/ImagePullBackOff r0 ready=false", Events: "BackOff,Failed"}},
				{time.Hour, summary{Phase: corev1.PodPending, Conditions: notReady, Containers: "app:waiting/ImagePullBackOff r0 ready=false"}},
			},
		},
		{
			name: "an init container's pull error blocks the pod",
			pod: testPod(annotate(AnnotationImagePullError, "manifest unknown"), func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
			}),
			steps: []at{{0, summary{Phase: corev1.PodPending,
				Conditions: "PodReadyToStartContainers=True Initialized=False(ContainersNotInitialized) Ready=False(ContainersNotReady) ContainersReady=False(ContainersNotReady) PodScheduled=True",
				Containers: "init:waiting/ErrImagePull r0 ready=false; app:waiting/PodInitializing r0 ready=false", Wait: time.Second, Events: "Pulling,Failed,Failed"}}},
		},
		{
			name: "behaviour limited to one container",
			pod: testPod(annotate(AnnotationCrashLoop, "true", AnnotationContainers, "sidecar"), func(p *corev1.Pod) {
				p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Image: "envoy"})
			}),
			steps: []at{{0, summary{Phase: corev1.PodRunning,
				Conditions: notReady,
				Containers: "app:running r0 ready=true; sidecar:waiting/CrashLoopBackOff r1 ready=false",
				Wait:       10 * time.Second, Events: startEvents + "," + startEvents + ",Pulled,Created,Started,BackOff"}}},
		},
		{
			name: "deletion stops the containers and deletes",
			pod: testPod(func(p *corev1.Pod) {
				s := Advance(p, Env{Now: t0, HostIP: "10.0.0.2", PodIP: "10.244.0.2"}, Behaviour{})
				p.Status = s.Status
				now := metav1.NewTime(t0.Add(time.Minute))
				p.DeletionTimestamp = &now
			}),
			steps: []at{{time.Minute, summary{Phase: corev1.PodSucceeded, Conditions: completed,
				Containers: "app:terminated/Completed/0 r0 ready=false", Events: "Killing", Delete: true}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			pod := tc.pod.DeepCopy()
			b, err := ParseBehaviour(pod.Annotations)
			if err != nil {
				t.Fatal(err)
			}
			elapsed := time.Duration(0)
			for i, s := range tc.steps {
				clk.Step(s.after - elapsed)
				elapsed = s.after
				step := Advance(pod, Env{Now: clk.Now(), HostIP: "10.0.0.2", PodIP: "10.244.0.2"}, b)
				if got := summarize(step); got != s.want {
					t.Fatalf("step %d at +%s:\n got %+v\nwant %+v", i, s.after, got, s.want)
				}
				pod.Status = step.Status
			}
		})
	}
}

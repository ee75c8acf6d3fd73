package nodeagent

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestAdvanceFillsTheStatus(t *testing.T) {
	pod := testPod()
	step := Advance(pod, Env{Now: t0, HostIP: "10.0.0.2", PodIP: "10.244.0.7"}, Behaviour{})
	st := step.Status
	cs := st.ContainerStatuses[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"hostIP", st.HostIP, "10.0.0.2"},
		{"hostIPs", len(st.HostIPs) == 1 && st.HostIPs[0].IP == "10.0.0.2", true},
		{"podIP", st.PodIP, "10.244.0.7"},
		{"podIPs", len(st.PodIPs) == 1 && st.PodIPs[0].IP == "10.244.0.7", true},
		{"startTime", st.StartTime.Time, t0},
		{"qosClass kept", st.QOSClass, corev1.PodQOSBestEffort},
		{"image", cs.Image, "docker.io/library/nginx:latest"},
		{"imageID prefix", strings.HasPrefix(cs.ImageID, "docker.io/library/nginx@sha256:") && len(cs.ImageID) == len("docker.io/library/nginx@sha256:")+64, true},
		{"containerID", strings.HasPrefix(cs.ContainerID, "containerd://") && len(cs.ContainerID) == len("containerd://")+64, true},
		{"started", cs.Started != nil && *cs.Started, true},
		{"startedAt", cs.State.Running.StartedAt.Time, t0},
		{"PodScheduled kept", st.Conditions[4].LastTransitionTime.Time, t0},
		{"Ready transition", st.Conditions[2].LastTransitionTime.Time, t0},
		{"Created message", step.Events[2].Message, "Created container: app"},
		{"Started message", step.Events[3].Message, "Started container app"},
		{"Pulling message", step.Events[0].Message, `Pulling image "nginx"`},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}

	// A later step keeps the transition times of unchanged conditions.
	pod.Status = st
	again := Advance(pod, Env{Now: t0.Add(time.Minute)}, Behaviour{})
	for i, c := range again.Status.Conditions {
		if !c.LastTransitionTime.Time.Equal(st.Conditions[i].LastTransitionTime.Time) {
			t.Errorf("condition %s moved its transition time to %s", c.Type, c.LastTransitionTime)
		}
	}
	if len(again.Events) != 0 || again.Wait != 0 {
		t.Errorf("a steady pod got events %v and wait %s", again.Events, again.Wait)
	}

	// A crash keeps the previous run in lastState and names a new run.
	pod.Status = st
	zero := time.Duration(0)
	crashed := Advance(pod, Env{Now: t0.Add(time.Minute)}, Behaviour{ExitAfter: &zero, ExitCode: 3})
	c2 := crashed.Status.ContainerStatuses[0]
	if c2.LastTerminationState.Terminated == nil || c2.LastTerminationState.Terminated.ExitCode != 3 ||
		c2.LastTerminationState.Terminated.ContainerID == cs.ContainerID || c2.ContainerID == cs.ContainerID {
		t.Errorf("after a crash: lastState %+v, containerID %s (first run %s)", c2.LastTerminationState, c2.ContainerID, cs.ContainerID)
	}
	if w := c2.State.Waiting; w == nil || w.Message != "back-off 10s restarting failed container=app pod=web_default(uid-1)" {
		t.Errorf("back-off state %+v", c2.State)
	}
}

func TestNormalizeImage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"nginx", "docker.io/library/nginx:latest"},
		{"nginx:1.27", "docker.io/library/nginx:1.27"},
		{"bitnami/redis", "docker.io/bitnami/redis:latest"},
		{"registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10"},
		{"localhost:5000/app", "localhost:5000/app:latest"},
		{"localhost/app", "localhost/app:latest"},
		{"busybox@sha256:abc", "docker.io/library/busybox@sha256:abc"},
	} {
		if got := normalizeImage(tc.in); got != tc.want {
			t.Errorf("normalizeImage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRestartDelay(t *testing.T) {
	for _, tc := range []struct {
		restarts int32
		want     time.Duration
	}{{0, 0}, {1, 10 * time.Second}, {2, 20 * time.Second}, {5, 160 * time.Second}, {6, 5 * time.Minute}, {100, 5 * time.Minute}} {
		if got := restartDelay(tc.restarts); got != tc.want {
			t.Errorf("restartDelay(%d) = %s, want %s", tc.restarts, got, tc.want)
		}
	}
}

func TestParseBehaviour(t *testing.T) {
	d := func(s string) *time.Duration { v, _ := time.ParseDuration(s); return &v }
	for _, tc := range []struct {
		name    string
		in      map[string]string
		want    Behaviour
		wantErr string // the annotation the error names
	}{
		{name: "none", in: nil},
		{name: "exit", in: map[string]string{AnnotationExitAfter: "30s", AnnotationExitCode: "4"}, want: Behaviour{ExitAfter: d("30s"), ExitCode: 4}},
		{name: "crash loop", in: map[string]string{AnnotationCrashLoop: "true"}, want: Behaviour{ExitAfter: d("0s"), ExitCode: 1}},
		{name: "never ready", in: map[string]string{AnnotationNeverReady: "true"}, want: Behaviour{NeverReady: true}},
		{name: "pull error true", in: map[string]string{AnnotationImagePullError: "true"}, want: Behaviour{PullError: "not found"}},
		{name: "pull error message", in: map[string]string{AnnotationImagePullError: "unauthorized"}, want: Behaviour{PullError: "unauthorized"}},
		{name: "pull error false", in: map[string]string{AnnotationImagePullError: "false"}},
		{name: "containers", in: map[string]string{AnnotationNeverReady: "true", AnnotationContainers: "a, b,"}, want: Behaviour{NeverReady: true, Containers: []string{"a", "b"}}},
		{name: "bad duration", in: map[string]string{AnnotationExitAfter: "soon", AnnotationNeverReady: "1"}, want: Behaviour{NeverReady: true}, wantErr: AnnotationExitAfter},
		{name: "bad code", in: map[string]string{AnnotationExitCode: "300"}, wantErr: AnnotationExitCode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseBehaviour(tc.in)
			var ae *AnnotationError
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantErr != "" && (!errors.As(err, &ae) || ae.Key != tc.wantErr):
				t.Fatalf("error %v, want one about %s", err, tc.wantErr)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestAdvancePullsOncePerNode(t *testing.T) {
	held := map[string]bool{"docker.io/library/nginx:latest": true}
	present := func(image string) bool { return held[normalizeImage(image)] }
	reasons := func(s Step) string {
		var out []string
		for _, e := range s.Events {
			out = append(out, e.Reason)
		}
		return strings.Join(out, ",")
	}
	tests := []struct {
		name    string
		policy  corev1.PullPolicy
		present func(string) bool
		want    string
	}{
		{"IfNotPresent, not held", corev1.PullIfNotPresent, nil, "Pulling,Pulled,Created,Started"},
		{"IfNotPresent, held", corev1.PullIfNotPresent, present, "Pulled,Created,Started"},
		{"Always, held", corev1.PullAlways, present, "Pulling,Pulled,Created,Started"},
		{"Never", corev1.PullNever, nil, "Pulled,Created,Started"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := testPod()
			pod.Spec.Containers[0].ImagePullPolicy = tt.policy
			step := Advance(pod, Env{Now: t0, HostIP: "10.0.0.2", PodIP: "10.244.0.7", Present: tt.present}, Behaviour{})
			if got := reasons(step); got != tt.want {
				t.Errorf("events: got %s, want %s", got, tt.want)
			}
		})
	}
	var n nodeImages
	step := Advance(testPod(), Env{Now: t0, HostIP: "10.0.0.2", PodIP: "10.244.0.7"}, Behaviour{})
	n.keep("node-1", step.Status)
	if got := []bool{n.has("node-1", "nginx"), n.has("node-1", "docker.io/library/nginx:latest"), n.has("node-2", "nginx")}; !reflect.DeepEqual(got, []bool{true, true, false}) {
		t.Errorf("held after a start on node-1 (nginx, its full name, on node-2): got %v", got)
	}
}

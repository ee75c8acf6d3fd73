package registry

import (
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// asDecoded is a typed object as Decode hands it to a strategy.
func asDecoded(t *testing.T, typed any) map[string]any {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func basicPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}

func createPod(t *testing.T, pod *corev1.Pod) (*corev1.Pod, field.ErrorList) {
	t.Helper()
	obj := asDecoded(t, pod)
	errs := podStrategy{}.PrepareForCreate(time.Time{}, obj)
	var got corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &got); err != nil {
		t.Fatal(err)
	}
	return &got, errs
}

func TestPodDefaults(t *testing.T) {
	pod := basicPod()
	pod.Spec.Containers = append(pod.Spec.Containers,
		corev1.Container{Name: "tagged", Image: "registry.io:5000/app:1.2",
			Ports:         []corev1.ContainerPort{{ContainerPort: 80}},
			LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intOrStr(80)}}},
			Resources:     corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": resource.MustParse("1")}},
		},
		corev1.Container{Name: "latest", Image: "busybox:latest"},
		corev1.Container{Name: "digest", Image: "busybox@sha256:abcd"},
	)
	pod.Spec.Volumes = []corev1.Volume{{Name: "scratch"}, {Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}}}
	got, errs := createPod(t, pod)
	if errs != nil {
		t.Fatal(errs)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"restartPolicy", got.Spec.RestartPolicy, corev1.RestartPolicyAlways},
		{"dnsPolicy", got.Spec.DNSPolicy, corev1.DNSClusterFirst},
		{"terminationGracePeriodSeconds", *got.Spec.TerminationGracePeriodSeconds, int64(30)},
		{"schedulerName", got.Spec.SchedulerName, "default-scheduler"},
		{"securityContext", *got.Spec.SecurityContext, corev1.PodSecurityContext{}},
		{"enableServiceLinks", *got.Spec.EnableServiceLinks, true},
		{"priority", *got.Spec.Priority, int32(0)},
		{"preemptionPolicy", *got.Spec.PreemptionPolicy, corev1.PreemptLowerPriority},
		{"serviceAccountName", got.Spec.ServiceAccountName, "default"},
		{"serviceAccount", got.Spec.DeprecatedServiceAccount, "default"},
		{"untagged pulls Always", got.Spec.Containers[0].ImagePullPolicy, corev1.PullAlways},
		{"tagged pulls IfNotPresent", got.Spec.Containers[1].ImagePullPolicy, corev1.PullIfNotPresent},
		{"latest pulls Always", got.Spec.Containers[2].ImagePullPolicy, corev1.PullAlways},
		{"digest pulls IfNotPresent", got.Spec.Containers[3].ImagePullPolicy, corev1.PullIfNotPresent},
		{"terminationMessagePath", got.Spec.Containers[0].TerminationMessagePath, "/dev/termination-log"},
		{"terminationMessagePolicy", got.Spec.Containers[0].TerminationMessagePolicy, corev1.TerminationMessageReadFile},
		{"port protocol", got.Spec.Containers[1].Ports[0].Protocol, corev1.ProtocolTCP},
		{"probe", *got.Spec.Containers[1].LivenessProbe, corev1.Probe{
			ProbeHandler:   corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intOrStr(80), Scheme: corev1.URISchemeHTTP}},
			TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
		}},
		{"requests from limits", got.Spec.Containers[1].Resources.Requests.Cpu().String(), "1"},
		{"volume without source", got.Spec.Volumes[0].VolumeSource, corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{"configMap mode", *got.Spec.Volumes[1].ConfigMap.DefaultMode, int32(0o644)},
		{"tolerations", got.Spec.Tolerations, []corev1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr.To(int64(300))},
			{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr.To(int64(300))},
		}},
		{"phase", got.Status.Phase, corev1.PodPending},
		{"qosClass", got.Status.QOSClass, corev1.PodQOSBurstable},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
}

func TestPodAdmissionKeepsClientChoices(t *testing.T) {
	pod := basicPod()
	pod.Spec.ServiceAccountName = "builder"
	pod.Spec.Tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: "Exists"}}
	got, errs := createPod(t, pod)
	if errs != nil {
		t.Fatal(errs)
	}
	if got.Spec.ServiceAccountName != "builder" || got.Spec.DeprecatedServiceAccount != "builder" {
		t.Errorf("service account: got %q/%q, want builder", got.Spec.ServiceAccountName, got.Spec.DeprecatedServiceAccount)
	}
	want := []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: "Exists"},
		{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr.To(int64(300))},
	}
	if !reflect.DeepEqual(got.Spec.Tolerations, want) {
		t.Errorf("tolerations: got %+v, want %+v", got.Spec.Tolerations, want)
	}
}

func intOrStr(i int32) intstr.IntOrString { return intstr.FromInt32(i) }

func TestPodSchedulingGated(t *testing.T) {
	pod := basicPod()
	pod.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	obj := asDecoded(t, pod)
	if errs := (podStrategy{}).PrepareForCreate(now, obj); len(errs) > 0 {
		t.Fatal(errs)
	}
	got := nestedMap(obj, false, "status")["conditions"]
	want := []any{map[string]any{
		"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
		"message":       "Scheduling is blocked due to non-empty scheduling gates",
		"lastProbeTime": nil, "lastTransitionTime": "2026-01-01T00:00:00Z",
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestPodQOS(t *testing.T) {
	res := func(req, lim string) corev1.ResourceRequirements {
		r := corev1.ResourceRequirements{}
		if req != "" {
			r.Requests = corev1.ResourceList{"cpu": resource.MustParse(req), "memory": resource.MustParse(req + "Mi")}
		}
		if lim != "" {
			r.Limits = corev1.ResourceList{"cpu": resource.MustParse(lim), "memory": resource.MustParse(lim + "Mi")}
		}
		return r
	}
	tests := []struct {
		name string
		res  []corev1.ResourceRequirements
		want corev1.PodQOSClass
	}{
		{"nothing", []corev1.ResourceRequirements{{}}, corev1.PodQOSBestEffort},
		{"limits only, requests default to them", []corev1.ResourceRequirements{res("", "1")}, corev1.PodQOSGuaranteed},
		{"requests equal limits", []corev1.ResourceRequirements{res("1", "1")}, corev1.PodQOSGuaranteed},
		{"requests below limits", []corev1.ResourceRequirements{res("1", "2")}, corev1.PodQOSBurstable},
		{"requests only", []corev1.ResourceRequirements{res("1", "")}, corev1.PodQOSBurstable},
		{"one container without limits", []corev1.ResourceRequirements{res("1", "1"), {}}, corev1.PodQOSBurstable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := basicPod()
			pod.Spec.Containers = nil
			for i, r := range tt.res {
				pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "c" + string(rune('a'+i)), Image: "x", Resources: r})
			}
			got, errs := createPod(t, pod)
			if errs != nil {
				t.Fatal(errs)
			}
			if got.Status.QOSClass != tt.want {
				t.Errorf("got %s, want %s", got.Status.QOSClass, tt.want)
			}
		})
	}
}

func TestPodValidation(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*corev1.Pod)
		want   []string // "type path: detail"
	}{
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil }, []string{"Required value spec.containers: "}},
		{"no image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "" }, []string{"Required value spec.containers[0].image: "}},
		{"bad container name", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "Web_1" }, []string{
			"Invalid value spec.containers[0].name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
		}},
		{"duplicate container", func(p *corev1.Pod) { p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0]) }, []string{"Duplicate value spec.containers[1].name: "}},
		{"init container reuses a name", func(p *corev1.Pod) { p.Spec.InitContainers = []corev1.Container{{Name: "c", Image: "x"}} }, []string{"Duplicate value spec.initContainers[0].name: "}},
		{"restart policy", func(p *corev1.Pod) { p.Spec.RestartPolicy = "Sometimes" }, []string{`Unsupported value spec.restartPolicy: supported values: "Always", "OnFailure", "Never"`}},
		{"dns policy", func(p *corev1.Pod) { p.Spec.DNSPolicy = "Google" }, []string{`Unsupported value spec.dnsPolicy: supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`}},
		{"requests above limits", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{"cpu": resource.MustParse("2")}, Limits: corev1.ResourceList{"cpu": resource.MustParse("1")}}
		}, []string{"Invalid value spec.containers[0].resources.requests: must be less than or equal to cpu limit of 1"}},
		{"negative quantity", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"memory": resource.MustParse("-1")}}
		}, []string{"Invalid value spec.containers[0].resources.requests[memory]: must be greater than or equal to 0"}},
		{"unknown resource", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"gpu": resource.MustParse("1")}}
		}, []string{
			"Invalid value spec.containers[0].resources.requests[gpu]: must be a standard resource type or fully qualified",
			"Invalid value spec.containers[0].resources.requests[gpu]: must be a standard resource for containers",
		}},
		{"extended resource not whole", func(p *corev1.Pod) {
			q := resource.MustParse("500m")
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"example.com/gpu": q}, Limits: corev1.ResourceList{"example.com/gpu": q}}
		}, []string{
			"Invalid value spec.containers[0].resources.limits[example.com/gpu]: must be an integer",
			"Invalid value spec.containers[0].resources.requests[example.com/gpu]: must be an integer",
		}},
		{"probe without handler", func(p *corev1.Pod) { p.Spec.Containers[0].LivenessProbe = &corev1.Probe{} }, []string{"Required value spec.containers[0].livenessProbe: must specify a handler type"}},
		{"probe with two handlers", func(p *corev1.Pod) {
			p.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				Exec: &corev1.ExecAction{Command: []string{"true"}}, TCPSocket: &corev1.TCPSocketAction{Port: intOrStr(80)}}}
		}, []string{"Forbidden spec.containers[0].readinessProbe.tcpSocket: may not specify more than 1 handler type"}},
		{"negative probe period", func(p *corev1.Pod) {
			p.Spec.Containers[0].StartupProbe = &corev1.Probe{PeriodSeconds: -1, ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}
		}, []string{"Invalid value spec.containers[0].startupProbe.periodSeconds: must be greater than or equal to 0"}},
		{"toleration operator", func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: "Near"}} },
			[]string{`Unsupported value spec.tolerations[0].operator: supported values: "Equal", "Exists"`}},
		{"toleration effect", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: "Exists", Effect: "Never"}}
		},
			[]string{`Unsupported value spec.tolerations[0].effect: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}},
		{"toleration seconds without NoExecute", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: "Exists", Effect: "NoSchedule", TolerationSeconds: ptr.To(int64(5))}}
		}, []string{"Invalid value spec.tolerations[0].effect: effect must be 'NoExecute' when `tolerationSeconds` is set"}},
		{"empty key needs Exists", func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{{Operator: "Equal"}} },
			[]string{"Invalid value spec.tolerations[0].operator: operator must be Exists when `key` is empty, which means \"match all values and all keys\""}},
		{"port out of range", func(p *corev1.Pod) { p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 70000}} },
			[]string{"Invalid value spec.containers[0].ports[0].containerPort: must be between 1 and 65535, inclusive"}},
		{"port protocol", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, Protocol: "ICMP"}}
		},
			[]string{`Unsupported value spec.containers[0].ports[0].protocol: supported values: "SCTP", "TCP", "UDP"`}},
		{"mount of a missing volume", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data"}}
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/d"}, {Name: "cache", MountPath: "/d"}}
		}, []string{"Not found spec.containers[0].volumeMounts[1].name: ", "Invalid value spec.containers[0].volumeMounts[1].mountPath: must be unique"}},
		{"env name", func(p *corev1.Pod) { p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A=B"}, {Value: "v"}} }, []string{
			"Invalid value spec.containers[0].env[0].name: a valid environment variable name must consist only of printable ASCII characters other than '='",
			"Required value spec.containers[0].env[1].name: ",
		}},
		{"ephemeral containers on create", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", Image: "x"}}}
		}, []string{"Forbidden spec.ephemeralContainers: cannot be set on create"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := basicPod()
			tt.mutate(pod)
			_, errs := createPod(t, pod)
			if got := describeErrors(errs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func describeErrors(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Type.String()+" "+e.Field+": "+e.Detail)
	}
	return out
}

func TestPodUpdate(t *testing.T) {
	stored, errs := createPod(t, basicPod())
	if errs != nil {
		t.Fatal(errs)
	}
	tests := []struct {
		name   string
		mutate func(*corev1.Pod)
		want   []string // error prefixes; none means the update is accepted
	}{
		{"image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "nginx:2" }, nil},
		{"defaults left out compare equal", func(p *corev1.Pod) {
			p.Spec.RestartPolicy, p.Spec.DNSPolicy, p.Spec.DeprecatedServiceAccount = "", "", ""
			p.Spec.Containers[0].ImagePullPolicy = ""
		}, nil},
		{"added toleration", func(p *corev1.Pod) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "k", Operator: "Exists"})
		}, nil},
		{"toleration seconds", func(p *corev1.Pod) { p.Spec.Tolerations[0].TolerationSeconds = ptr.To(int64(10)) }, nil},
		{"removed toleration", func(p *corev1.Pod) { p.Spec.Tolerations = p.Spec.Tolerations[1:] },
			[]string{"Forbidden spec.tolerations: existing toleration can not be modified except its tolerationSeconds"}},
		{"active deadline set", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr.To(int64(60)) }, nil},
		{"added container", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "d", Image: "x"})
		},
			[]string{"Forbidden spec.containers: pod updates may not add or remove containers"}},
		{"nodeName", func(p *corev1.Pod) { p.Spec.NodeName = "n1" },
			[]string{"Forbidden spec: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\nchanged: spec.nodeName"}},
		{"restartPolicy", func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever },
			[]string{"Forbidden spec: pod updates may not change fields other than"}},
		{"new scheduling gate", func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}} },
			[]string{"Forbidden spec.schedulingGates[0].name: only deletion is allowed, but found new scheduling gate 'g'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := stored.DeepCopy()
			tt.mutate(next)
			next.Status = corev1.PodStatus{}
			obj := asDecoded(t, next)
			errs := podStrategy{}.PrepareForUpdate(time.Time{}, obj, asDecoded(t, stored))
			got := describeErrors(errs)
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("got %q, want prefix %q", got[i], tt.want[i])
				}
			}
			if errs == nil && obj["status"].(map[string]any)["phase"] != "Pending" {
				t.Errorf("status not kept: %v", obj["status"])
			}
		})
	}
}

func TestPodStatusUpdate(t *testing.T) {
	stored, errs := createPod(t, basicPod())
	if errs != nil {
		t.Fatal(errs)
	}
	stored.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ReplicationController", Name: "rc", UID: "u"}}
	stored.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: "False", ObservedGeneration: 1}}
	next := stored.DeepCopy()
	next.Spec.NodeName = "sneaky"
	next.OwnerReferences = nil
	next.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: "True"}}}
	obj := asDecoded(t, next)
	if errs := (podStrategy{}).PrepareForStatusUpdate(obj, asDecoded(t, stored)); errs != nil {
		t.Fatal(errs)
	}
	var got corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &got); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"spec kept", got.Spec.NodeName, ""},
		{"owner references kept", len(got.OwnerReferences), 1},
		{"phase written", got.Status.Phase, corev1.PodRunning},
		{"qosClass backfilled", got.Status.QOSClass, corev1.PodQOSBestEffort},
		{"condition observedGeneration kept", got.Status.Conditions[0].ObservedGeneration, int64(1)},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestPodFieldSet(t *testing.T) {
	res := builtin("", "pods")
	pod := basicPod()
	pod.Spec.NodeName = "n1"
	got := res.FieldSet(asDecoded(t, pod))
	want := map[string]string{
		"metadata.name": "p", "metadata.namespace": "ns", "spec.nodeName": "n1", "spec.restartPolicy": "",
		"spec.schedulerName": "", "spec.serviceAccountName": "", "spec.hostNetwork": "false",
		"status.phase": "", "status.podIP": "", "status.nominatedNodeName": "",
	}
	if !reflect.DeepEqual(map[string]string(got), want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestPodErrorValues checks how bad values print, as kube-apiserver
// v1.33 prints them (recorded from the oracle): resource names bare,
// a fractional device count as the Go value of the quantity.
func TestPodErrorValues(t *testing.T) {
	pod := basicPod()
	q := resource.MustParse("500m")
	pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{"example.com/dev": q, "gpu": resource.MustParse("1")}}
	_, errs := createPod(t, pod)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`spec.containers[0].resources.limits[example.com/dev]: Invalid value: resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"500m", Format:"DecimalSI"}: must be an integer`,
		`spec.containers[0].resources.limits[gpu]: Invalid value: gpu: must be a standard resource type or fully qualified`,
		`spec.containers[0].resources.limits[gpu]: Invalid value: gpu: must be a standard resource for containers`,
		// Requests default to the limits, and fail the same way.
		`spec.containers[0].resources.requests[example.com/dev]: Invalid value: resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"500m", Format:"DecimalSI"}: must be an integer`,
		`spec.containers[0].resources.requests[gpu]: Invalid value: gpu: must be a standard resource type or fully qualified`,
		`spec.containers[0].resources.requests[gpu]: Invalid value: gpu: must be a standard resource for containers`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// TestPodStatusErrors checks status writes kube refuses; the messages
// were recorded from kube-apiserver v1.33.
func TestPodStatusErrors(t *testing.T) {
	base := basicPod()
	base.Spec.RestartPolicy = corev1.RestartPolicyNever
	stored, errs := createPod(t, base)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	stored.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{}}}}
	tests := []struct {
		name   string
		status func(*corev1.PodStatus)
		want   []string
	}{
		{"qosClass", func(s *corev1.PodStatus) { s.QOSClass = corev1.PodQOSGuaranteed },
			[]string{`status.qosClass: Invalid value: "Guaranteed": field is immutable`}},
		{"terminated comes back", func(s *corev1.PodStatus) {
			s.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
		}, []string{"status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"}},
		{"two IPv4 addresses", func(s *corev1.PodStatus) { s.PodIPs = []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}} },
			[]string{`status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"10.0.0.2"}}: may specify no more than one IP for each IP family`}},
		{"dual stack", func(s *corev1.PodStatus) { s.PodIPs = []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}} }, nil},
		{"condition type", func(s *corev1.PodStatus) {
			s.Conditions = []corev1.PodCondition{{Type: "bad type!", Status: "True"}}
		}, []string{`status.conditions[0].Type: Invalid value: "bad type!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := stored.DeepCopy()
			tt.status(&next.Status)
			var got []string
			for _, e := range (podStrategy{}).PrepareForStatusUpdate(asDecoded(t, next), asDecoded(t, stored)) {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

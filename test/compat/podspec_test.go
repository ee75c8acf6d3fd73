package compat_test

import (
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestPodSpecValidationCauses checks what client-go gets for a pod spec
// with a bad volume, a bad affinity, and a template with a bad spread
// constraint: 422 Invalid, the message and each cause (reason, field,
// message) as kube-apiserver v1.33.13 answers the same objects.
func TestPodSpecValidationCauses(t *testing.T) {
	srv := apiservertest.Start(t)
	cs, err := kubernetes.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ns := createNamespace(t, cs, "podspec")

	badVolume := nginxPod("badvolume")
	badVolume.Spec.Volumes = []corev1.Volume{{Name: "logs", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{}}}}
	badVolume.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "logs", MountPath: "/var/log/nginx"}}

	badAffinity := nginxPod("badaffinity")
	badAffinity.Spec.Affinity = &corev1.Affinity{
		NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{}},
		PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}},
	}

	spread := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "spread"}, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers:                []corev1.Container{{Name: "c", Image: "x"}},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule}},
	}}}

	const topologyKeyMsg = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	const antiTerm = "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey"
	tests := []struct {
		name       string
		create     func() error
		wantMsg    string
		wantCauses []metav1.StatusCause
	}{
		{
			name: "hostPath without a path",
			create: func() error {
				_, err := cs.CoreV1().Pods(ns).Create(ctx, badVolume, metav1.CreateOptions{})
				return err
			},
			wantMsg: `Pod "badvolume" is invalid: [spec.volumes[0].hostPath.path: Required value, spec.containers[0].volumeMounts[0].name: Not found: "logs"]`,
			wantCauses: []metav1.StatusCause{
				{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "spec.volumes[0].hostPath.path"},
				{Type: metav1.CauseTypeFieldValueNotFound, Message: `Not found: "logs"`, Field: "spec.containers[0].volumeMounts[0].name"},
			},
		},
		{
			name: "node affinity without terms, pod anti-affinity without topology key",
			create: func() error {
				_, err := cs.CoreV1().Pods(ns).Create(ctx, badAffinity, metav1.CreateOptions{})
				return err
			},
			wantMsg: `Pod "badaffinity" is invalid: [` +
				`spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term, ` +
				antiTerm + `: Required value: can not be empty, ` +
				antiTerm + `: Invalid value: "": name part must be non-empty, ` +
				antiTerm + `: Invalid value: "": ` + topologyKeyMsg + `]`,
			wantCauses: []metav1.StatusCause{
				{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value: must have at least one node selector term",
					Field: "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"},
				{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value: can not be empty", Field: antiTerm},
				{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "": name part must be non-empty`, Field: antiTerm},
				{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "": ` + topologyKeyMsg, Field: antiTerm},
			},
		},
		{
			name: "template spread constraint without skew",
			create: func() error {
				_, err := cs.CoreV1().PodTemplates(ns).Create(ctx, spread, metav1.CreateOptions{})
				return err
			},
			wantMsg: `PodTemplate "spread" is invalid: template.spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero`,
			wantCauses: []metav1.StatusCause{
				{Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: 0: must be greater than zero", Field: "template.spec.topologySpreadConstraints[0].maxSkew"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var se apierrors.APIStatus
			if err := tc.create(); !errors.As(err, &se) {
				t.Fatalf("got error %v (%T), want an API status", err, err)
			}
			st := se.Status()
			if st.Code != 422 || st.Reason != metav1.StatusReasonInvalid {
				t.Errorf("got %d %s, want 422 Invalid (message %q)", st.Code, st.Reason, st.Message)
			}
			if st.Message != tc.wantMsg {
				t.Errorf("message:\ngot  %q\nwant %q", st.Message, tc.wantMsg)
			}
			var causes []metav1.StatusCause
			if st.Details != nil {
				causes = st.Details.Causes
			}
			if !reflect.DeepEqual(causes, tc.wantCauses) {
				t.Errorf("causes:\ngot  %+v\nwant %+v", causes, tc.wantCauses)
			}
		})
	}
}

package registry

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestDecodeTypedMatchesDecode checks that a body arriving typed (a
// protobuf request) becomes the same unstructured content as the same
// object sent as JSON.
func TestDecodeTypedMatchesDecode(t *testing.T) {
	pods := builtin("", "pods")
	grace := int64(5)
	tests := []struct {
		name string
		obj  *corev1.Pod
	}{
		{name: "minimal", obj: &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}},
		{name: "quantities, probes, times and empty collections", obj: &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "b"}, Annotations: map[string]string{},
				CreationTimestamp: metav1.Unix(1700000000, 0)},
			Spec: corev1.PodSpec{
				TerminationGracePeriodSeconds: &grace,
				Containers: []corev1.Container{{Name: "c", Image: "nginx",
					Resources:      corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString("http")}}},
					Ports:          []corev1.ContainerPort{},
				}},
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.obj.APIVersion, tt.obj.Kind = "v1", "Pod"
			body, err := json.Marshal(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := pods.Decode(body, FieldStrict)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pods.DecodeTyped(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("DecodeTyped = %#v\nwant (Decode of its JSON) %#v", got, want)
			}
		})
	}
	custom := &Resource{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets"}
	if _, err := custom.DecodeTyped(&corev1.Pod{}); !errors.Is(err, ErrDecode) {
		t.Errorf("DecodeTyped on a custom resource = %v, want %v", err, ErrDecode)
	}
}

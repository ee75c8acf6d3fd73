package pvcprotection

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestDecide(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	zero := int64(0)
	yes := true
	claim := func(opts ...func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "data", Finalizers: []string{Finalizer}}}
		for _, o := range opts {
			o(c)
		}
		return c
	}
	deleting := func(c *corev1.PersistentVolumeClaim) { c.DeletionTimestamp = &now }
	bare := func(c *corev1.PersistentVolumeClaim) { c.Finalizers = nil }
	ofPod := func(c *corev1.PersistentVolumeClaim) {
		c.Name = "p-scratch"
		c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "p-uid", Controller: &yes}}
	}
	pod := func(opts ...func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: types.UID("p-uid")},
			Spec: corev1.PodSpec{NodeName: "n1", Volumes: []corev1.Volume{
				{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
				{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}},
			}}}
		for _, o := range opts {
			o(p)
		}
		return p
	}
	unscheduled := func(p *corev1.Pod) { p.Spec.NodeName = "" }
	otherNS := func(p *corev1.Pod) { p.Namespace = "other" }
	shutDown := func(p *corev1.Pod) { p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &now, &zero }
	tests := []struct {
		name string
		pvc  *corev1.PersistentVolumeClaim
		pods []*corev1.Pod
		want Action
	}{
		{"a live claim keeps its finalizer", claim(), []*corev1.Pod{pod()}, Keep},
		{"a claim without the finalizer gets it", claim(bare), nil, Add},
		{"a deleted claim without the finalizer is left to go", claim(bare, deleting), nil, Keep},
		{"a deleted claim a scheduled pod mounts is kept", claim(deleting), []*corev1.Pod{pod()}, Keep},
		{"a deleted claim only an unscheduled pod names is checked", claim(deleting), []*corev1.Pod{pod(unscheduled)}, Check},
		{"a pod of another namespace does not count", claim(deleting), []*corev1.Pod{pod(otherNS)}, Check},
		{"a mounted claim counts even from a shut-down pod", claim(deleting), []*corev1.Pod{pod(shutDown)}, Keep},
		{"an ephemeral claim of a running pod is kept", claim(deleting, ofPod), []*corev1.Pod{pod()}, Keep},
		{"an ephemeral claim of a shut-down pod is checked", claim(deleting, ofPod), []*corev1.Pod{pod(shutDown)}, Check},
		{"an ephemeral claim another pod of the name does not own is checked", claim(deleting, ofPod),
			[]*corev1.Pod{pod(func(p *corev1.Pod) { p.UID = "new-uid" })}, Check},
	}
	for _, tt := range tests {
		if got := Decide(tt.pvc, tt.pods); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

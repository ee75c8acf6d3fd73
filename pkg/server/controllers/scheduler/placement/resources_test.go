package placement

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestPodRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	ctr := func(cpu string) corev1.Container {
		c := corev1.Container{Name: "c" + cpu}
		if cpu != "" {
			c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		}
		return c
	}
	sidecar := func(cpu string) corev1.Container {
		c := ctr(cpu)
		c.RestartPolicy = &always
		return c
	}
	tests := []struct {
		name              string
		spec              corev1.PodSpec
		wantCPU           int64
		wantNonZeroCPU    int64
		wantNonZeroMemory int64
	}{
		{"containers add up", corev1.PodSpec{Containers: []corev1.Container{ctr("1"), ctr("500m")}}, 1500, 1500, 2 * defaultMemory},
		{"the largest init container wins", corev1.PodSpec{InitContainers: []corev1.Container{ctr("3"), ctr("1")}, Containers: []corev1.Container{ctr("1")}}, 3000, 3000, defaultMemory},
		{"containers win over a smaller init", corev1.PodSpec{InitContainers: []corev1.Container{ctr("1")}, Containers: []corev1.Container{ctr("2")}}, 2000, 2000, defaultMemory},
		{"sidecars run beside everything after them", corev1.PodSpec{
			InitContainers: []corev1.Container{sidecar("1"), ctr("2")}, Containers: []corev1.Container{ctr("500m")}}, 3000, 3000, 2 * defaultMemory},
		{"overhead", corev1.PodSpec{Containers: []corev1.Container{ctr("1")}, Overhead: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}, 1250, 1250, defaultMemory},
		{"nothing requested", corev1.PodSpec{Containers: []corev1.Container{ctr("")}}, 0, defaultMilliCPU, defaultMemory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: tt.spec}
			if got := PodRequests(pod, false).MilliCPU; got != tt.wantCPU {
				t.Errorf("cpu: got %dm, want %dm", got, tt.wantCPU)
			}
			nz := PodRequests(pod, true)
			if nz.MilliCPU != tt.wantNonZeroCPU || nz.Memory != tt.wantNonZeroMemory {
				t.Errorf("non-zero: got %dm %d, want %dm %d", nz.MilliCPU, nz.Memory, tt.wantNonZeroCPU, tt.wantNonZeroMemory)
			}
		})
	}
}

func TestNodeInfoAddRemove(t *testing.T) {
	ni := NewNodeInfo(mkNode("a"))
	p := NewPodInfo(mkPod("p", requests("cpu", "1"), hostPort(80, "", "")))
	ni.AddPod(p)
	if ni.Requested.MilliCPU != 1000 || len(ni.usedPorts) != 1 || len(ni.Pods) != 1 {
		t.Fatalf("after add: %+v", ni)
	}
	if !ni.RemovePod(string(p.Pod.UID)) || ni.RemovePod(string(p.Pod.UID)) {
		t.Fatalf("remove: want true once")
	}
	if ni.Requested.MilliCPU != 0 || len(ni.usedPorts) != 0 || len(ni.Pods) != 0 {
		t.Fatalf("after remove: %+v", ni)
	}
}

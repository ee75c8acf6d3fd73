package pvcprotection_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/pvcprotection"
)

// TestLive: a claim a running pod mounts stays, marked for deletion,
// until the pod is gone; a claim no pod uses goes at once.
func TestLive(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sim", Labels: map[string]string{"setpoint.dev/simulated": "true"}}}
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	newClaim := func(name string) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}
		if err := c.Create(ctx, pvc); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(pvc.Finalizers, pvcprotection.Finalizer) {
			t.Fatalf("claim %s created with finalizers %v", name, pvc.Finalizers)
		}
		return pvc
	}
	used, unused := newClaim("used"), newClaim("unused")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "nginx", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "used"}}}},
		},
	}
	if err := c.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the pod scheduled", func() error {
		got := &corev1.Pod{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "app"}, got); err != nil {
			return err
		}
		if got.Spec.NodeName == "" {
			return fmt.Errorf("not scheduled")
		}
		return nil
	}, envtest.Within(60*time.Second))

	for _, pvc := range []*corev1.PersistentVolumeClaim{used, unused} {
		if err := c.Delete(ctx, pvc); err != nil {
			t.Fatal(err)
		}
	}
	gone := func(name string) error {
		err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, &corev1.PersistentVolumeClaim{})
		if client.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("claim %s still there (%v)", name, err)
	}
	envtest.Eventually(t, "the unused claim deleted", func() error { return gone("unused") }, envtest.Within(60*time.Second))
	// The used claim stays while its pod runs.
	time.Sleep(time.Second)
	got := &corev1.PersistentVolumeClaim{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "used"}, got); err != nil {
		t.Fatalf("the claim in use: %v", err)
	}
	if got.DeletionTimestamp == nil || !slices.Contains(got.Finalizers, pvcprotection.Finalizer) {
		t.Errorf("the claim in use: deletion %v finalizers %v", got.DeletionTimestamp, got.Finalizers)
	}
	if err := c.Delete(ctx, pod, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the claim deleted after its pod", func() error { return gone("used") }, envtest.Within(60*time.Second))
}

// TestLiveNamespaceDeletion: the finalizer does not hold up the deletion
// of a namespace whose claims no pod uses any more.
func TestLiveNamespaceDeletion(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "scratch"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "scratch", Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if err := c.Create(ctx, pvc); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, ns); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the namespace gone", func() error {
		err := c.Get(ctx, types.NamespacedName{Name: "scratch"}, &corev1.Namespace{})
		if client.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("namespace still there (%v)", err)
	}, envtest.Within(60*time.Second))
}

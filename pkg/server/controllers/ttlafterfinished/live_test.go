package ttlafterfinished_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/ttlafterfinished"
)

// TestLive runs the controller alone against a real server: a Job
// marked Complete with a TTL of 2 s is deleted, Foreground (without a
// garbage collector it keeps the foregroundDeletion finalizer), no
// sooner than 2 s after it finished; a finished Job without a TTL and a
// running one with a TTL stay.
func TestLive(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	c := env.Client()
	ctx := context.Background()
	mk := func(name string, ttl *int32, finished bool) (*batchv1.Job, time.Time) {
		one := int32(1)
		j := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: batchv1.JobSpec{TTLSecondsAfterFinished: ttl, Completions: &one, Parallelism: &one,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}},
		}
		if err := c.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		now := metav1.NewTime(time.Now().Truncate(time.Second))
		if !finished {
			return j, now.Time
		}
		j.Status.StartTime = &now
		j.Status.CompletionTime = &now
		j.Status.Succeeded = 1
		j.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: "CompletionsReached", LastTransitionTime: now},
		}
		if err := c.UpdateStatus(ctx, j); err != nil {
			t.Fatal(err)
		}
		return j, now.Time
	}
	ttl := int32(2)
	done, finishedAt := mk("done", &ttl, true)
	kept, _ := mk("kept", nil, true)
	running, _ := mk("running", &ttl, false)
	var mgr *manager.Manager
	env.StartManager(t, func(m *manager.Manager) error {
		mgr = m
		return ttlafterfinished.Setup(m, ttlafterfinished.Options{})
	})

	get := func(j *batchv1.Job) (*batchv1.Job, error) {
		got := &batchv1.Job{}
		return got, c.Get(ctx, types.NamespacedName{Namespace: j.Namespace, Name: j.Name}, got)
	}
	envtest.Eventually(t, "the expired job deleted in the foreground", func() error {
		got, err := get(done)
		if err != nil {
			return err
		}
		if got.DeletionTimestamp == nil || !slices.Contains(got.Finalizers, metav1.FinalizerDeleteDependents) {
			return fmt.Errorf("deletionTimestamp %v, finalizers %v", got.DeletionTimestamp, got.Finalizers)
		}
		if early := finishedAt.Add(2 * time.Second).Sub(got.DeletionTimestamp.Time); early > time.Second {
			t.Errorf("deleted at %v, %v before its TTL ran out", got.DeletionTimestamp, early)
		}
		return nil
	}, envtest.Within(30*time.Second))
	for _, j := range []*batchv1.Job{kept, running} {
		if got, err := get(j); err != nil || got.DeletionTimestamp != nil {
			t.Errorf("%s: deletionTimestamp %v, err %v", j.Name, got.DeletionTimestamp, err)
		}
	}
	// kube's metric of the time from expiry to the delete: one Job.
	const metric = "ttl_after_finished_controller_job_deletion_duration_seconds"
	// The reconciler observes it once the delete has returned.
	envtest.Eventually(t, metric, func() error {
		families, err := mgr.Registry().Gather()
		if err != nil {
			return err
		}
		for _, f := range families {
			if f.GetName() != metric {
				continue
			}
			if n := f.GetMetric()[0].GetHistogram().GetSampleCount(); n != 1 {
				return fmt.Errorf("observed %d deletions, want 1", n)
			}
			return nil
		}
		return fmt.Errorf("not registered")
	}, envtest.Within(10*time.Second))
}

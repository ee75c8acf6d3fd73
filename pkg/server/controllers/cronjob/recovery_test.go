package cronjob_test

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

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/cronjob"
)

// TestLiveRecovery covers what a pass finds that it did not do: the
// Job of the minute already made by a pass whose status write was lost
// (listed, not created again), a Job of that name someone else made
// (left alone, nothing listed), a Job made from the CronJob by hand as
// `kubectl create job --from` does (UnexpectedJob), and a listed Job
// that no longer exists (MissingJob, dropped).
func TestLiveRecovery(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	c := env.Client()
	ctx := context.Background()

	mkCron := func(name string) *batchv1.CronJob {
		cj := &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: batchv1.CronJobSpec{
				Schedule: "*/1 * * * *",
				JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
				}}}},
			},
		}
		if err := c.Create(ctx, cj); err != nil {
			t.Fatal(err)
		}
		return cj
	}
	mkJob := func(name string, owner *batchv1.CronJob) {
		j := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			}}},
		}
		if owner != nil {
			j.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, batchv1.SchemeGroupVersion.WithKind("CronJob"))}
		}
		if err := c.Create(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	get := func(name string) *batchv1.CronJob {
		cj := &batchv1.CronJob{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, cj); err != nil {
			t.Fatal(err)
		}
		return cj
	}
	events := func(cj string) ([]string, error) {
		list := &corev1.EventList{}
		if err := c.List(ctx, list, client.InNamespace("default")); err != nil {
			return nil, err
		}
		var out []string
		for _, e := range list.Items {
			if e.InvolvedObject.Kind == "CronJob" && e.InvolvedObject.Name == cj {
				out = append(out, e.Reason+": "+e.Message)
			}
		}
		slices.Sort(out)
		return out, nil
	}
	activeOf := func(cj *batchv1.CronJob) []string {
		var out []string
		for _, r := range cj.Status.Active {
			out = append(out, r.Name)
		}
		return out
	}

	lost, manual, missing := mkCron("lost"), mkCron("manual"), mkCron("missing")
	mkCron("taken")
	// After the creations: the next minute is after them.
	fake := clock.NewFake(time.Now())
	minute := fake.Now().Truncate(time.Minute).Add(time.Minute)
	jobName := func(cj string) string { return fmt.Sprintf("%s-%d", cj, minute.Unix()/60) }
	mkJob(jobName("lost"), lost)
	mkJob(jobName("taken"), nil)
	mkJob("by-hand", manual)
	// A listed Job gone while no controller ran.
	missing.Status.Active = []corev1.ObjectReference{{Kind: "Job", APIVersion: "batch/v1", Namespace: "default", Name: "gone", UID: "gone-uid"}}
	if err := c.UpdateStatus(ctx, missing); err != nil {
		t.Fatal(err)
	}

	env.StartManager(t, func(m *manager.Manager) error {
		return cronjob.Setup(m, cronjob.Options{Clock: fake})
	})
	envtest.Eventually(t, "the missing Job dropped", func() error {
		if got := activeOf(get("missing")); len(got) > 0 {
			return fmt.Errorf("active %v", got)
		}
		evs, err := events("missing")
		if err != nil || !slices.Equal(evs, []string{"MissingJob: Active job went missing: gone"}) {
			return fmt.Errorf("events %v, err %v", evs, err)
		}
		return nil
	})
	envtest.Eventually(t, "the Job made by hand reported", func() error {
		evs, err := events("manual")
		if err != nil || !slices.Equal(evs, []string{"UnexpectedJob: Saw a job that the controller did not create or forgot: by-hand"}) {
			return fmt.Errorf("events %v, err %v", evs, err)
		}
		return nil
	})

	fake.Step(minute.Add(time.Second).Sub(fake.Now()))
	envtest.Eventually(t, "the Job of the lost write listed", func() error {
		cj := get("lost")
		if got := activeOf(cj); !slices.Equal(got, []string{jobName("lost")}) {
			return fmt.Errorf("active %v", got)
		}
		if cj.Status.LastScheduleTime == nil || !cj.Status.LastScheduleTime.Time.Equal(minute) {
			return fmt.Errorf("lastScheduleTime %v, want %v", cj.Status.LastScheduleTime, minute)
		}
		return nil
	})
	envtest.Eventually(t, "the others' minute started", func() error {
		for _, n := range []string{"manual", "missing"} {
			if got := activeOf(get(n)); !slices.Contains(got, jobName(n)) {
				return fmt.Errorf("%s: active %v", n, got)
			}
		}
		return nil
	})
	// The Job found was reported (the first pass saw it before the
	// minute came), not created; the other's was not even reported.
	envtest.Consistently(t, "no Job created for lost or taken", func() error {
		for n, want := range map[string][]string{
			"lost":  {"UnexpectedJob: Saw a job that the controller did not create or forgot: " + jobName("lost")},
			"taken": nil,
		} {
			evs, err := events(n)
			if err != nil {
				return err
			}
			if !slices.Equal(evs, want) {
				return fmt.Errorf("%s: events %v, want %v", n, evs, want)
			}
		}
		if cj := get("taken"); len(cj.Status.Active) > 0 || cj.Status.LastScheduleTime != nil {
			return fmt.Errorf("taken: status %+v", cj.Status)
		}
		return nil
	}, envtest.Within(time.Second))
}

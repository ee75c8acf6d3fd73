package cronjob_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/cronjob"
)

// TestLive runs the controller against a real server on a fake clock
// stepped a minute at a time, with three CronJobs on "*/1 * * * *":
// Allow starts a Job every minute and keeps 2 successful and 1 failed
// finished ones; Forbid skips a minute while its Job runs; Replace
// deletes the running Job and starts the next. A fourth CronJob whose
// schedule changes is looked at when the new schedule next fires, not
// at once: the times it missed since its creation are not started. No Job controller runs:
// the test finishes Jobs by writing their status as kube's would.
func TestLive(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	c := env.Client()
	ctx := context.Background()
	mk := func(name, schedule string, p batchv1.ConcurrencyPolicy) {
		cj := &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: batchv1.CronJobSpec{
				Schedule:                   schedule,
				ConcurrencyPolicy:          p,
				SuccessfulJobsHistoryLimit: ptr.To[int32](2),
				FailedJobsHistoryLimit:     ptr.To[int32](1),
				JobTemplate: batchv1.JobTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}, Annotations: map[string]string{"note": "from " + name}},
					Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
						RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
					}}},
				},
			},
		}
		if err := c.Create(ctx, cj); err != nil {
			t.Fatal(err)
		}
	}
	mk("allow", "*/1 * * * *", batchv1.AllowConcurrent)
	mk("forbid", "*/1 * * * *", batchv1.ForbidConcurrent)
	mk("replace", "*/1 * * * *", batchv1.ReplaceConcurrent)
	mk("moved", "0 0 1 1 *", batchv1.AllowConcurrent)
	// The fake clock starts after the CronJobs were created, so that
	// the next minute is after their creation.
	fake := clock.NewFake(time.Now())
	m := env.StartManager(t, func(m *manager.Manager) error {
		return cronjob.Setup(m, cronjob.Options{Clock: fake})
	})

	// minutes[i] is the i-th schedule time; tick moves the clock just
	// past the next one.
	var minutes []time.Time
	tick := func() time.Time {
		now := fake.Now()
		next := now.Truncate(time.Minute).Add(time.Minute)
		fake.Step(next.Add(time.Second).Sub(now))
		minutes = append(minutes, next)
		return next
	}
	name := func(cj string, m time.Time) string { return fmt.Sprintf("%s-%d", cj, m.Unix()/60) }
	// jobsOf are the names of the Jobs of a CronJob, sorted.
	jobsOf := func(cj string) ([]string, error) {
		list := &batchv1.JobList{}
		if err := c.List(ctx, list, client.InNamespace("default"), client.MatchingLabels{"app": cj}); err != nil {
			return nil, err
		}
		var out []string
		for _, j := range list.Items {
			out = append(out, j.Name)
		}
		slices.Sort(out)
		return out, nil
	}
	// expect waits for a CronJob's Jobs and status.
	expect := func(cj string, jobs []string, active []string, last time.Time) {
		t.Helper()
		slices.Sort(jobs)
		envtest.Eventually(t, cj+"'s jobs and status", func() error {
			got, err := jobsOf(cj)
			if err != nil {
				return err
			}
			if !slices.Equal(got, jobs) {
				return fmt.Errorf("jobs %v, want %v", got, jobs)
			}
			obj := &batchv1.CronJob{}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: cj}, obj); err != nil {
				return err
			}
			var act []string
			for _, r := range obj.Status.Active {
				if r.Kind != "Job" || r.APIVersion != "batch/v1" || r.Namespace != "default" || r.UID == "" {
					return fmt.Errorf("active entry %+v", r)
				}
				act = append(act, r.Name)
			}
			if !slices.Equal(act, active) {
				return fmt.Errorf("active %v, want %v", act, active)
			}
			if obj.Status.LastScheduleTime == nil || !obj.Status.LastScheduleTime.Time.Equal(last) {
				return fmt.Errorf("lastScheduleTime %v, want %v", obj.Status.LastScheduleTime, last)
			}
			return nil
		})
	}
	// finish writes a Job's status as kube's Job controller would on
	// success or failure.
	finish := func(job string, ok bool) {
		t.Helper()
		j := &batchv1.Job{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: job}, j); err != nil {
			t.Fatal(err)
		}
		start := j.CreationTimestamp
		end := metav1.NewTime(start.Add(time.Second))
		j.Status.StartTime = &start
		cond := func(t batchv1.JobConditionType) batchv1.JobCondition {
			return batchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, LastProbeTime: end, LastTransitionTime: end}
		}
		if ok {
			j.Status.Succeeded = 1
			j.Status.CompletionTime = &end
			j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobSuccessCriteriaMet), cond(batchv1.JobComplete)}
		} else {
			j.Status.Failed = 1
			j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobFailureTarget), cond(batchv1.JobFailed)}
		}
		if err := c.UpdateStatus(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	// event waits for an Event on a CronJob.
	event := func(cj, reason, message string) {
		t.Helper()
		envtest.Eventually(t, fmt.Sprintf("%s event on %s", reason, cj), func() error {
			list := &corev1.EventList{}
			if err := c.List(ctx, list, client.InNamespace("default")); err != nil {
				return err
			}
			var seen []string
			for _, e := range list.Items {
				if e.InvolvedObject.Kind == "CronJob" && e.InvolvedObject.Name == cj {
					if e.Reason == reason && e.Message == message && e.Source.Component == "cronjob-controller" {
						return nil
					}
					seen = append(seen, e.Reason+": "+e.Message)
				}
			}
			return fmt.Errorf("events of %s: %s", cj, strings.Join(seen, "; "))
		})
	}

	// The first look at each CronJob queues it for its next time on the
	// fake clock. Stepping the clock while a look is under way (it has
	// read the time, its timer is not set yet) would set that timer a
	// minute late, so the clock moves only once all four looks are done:
	// the controller counts a requeue after it set the timer.
	envtest.Eventually(t, "the first look at each CronJob", func() error {
		n, err := requeues(m.Registry())
		if err != nil {
			return err
		}
		if n < 4 {
			return fmt.Errorf("%v requeues, want 4", n)
		}
		return nil
	})

	// Minute 1: each starts a Job named after the minute, stamped with
	// it, carrying the template's metadata.
	m1 := tick()
	for _, cj := range []string{"allow", "forbid", "replace"} {
		expect(cj, []string{name(cj, m1)}, []string{name(cj, m1)}, m1)
		event(cj, "SuccessfulCreate", "Created job "+name(cj, m1))
	}
	j := &batchv1.Job{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name("allow", m1)}, j); err != nil {
		t.Fatal(err)
	}
	ref := metav1.GetControllerOf(j)
	if j.Annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] != m1.UTC().Format(time.RFC3339) || j.Annotations["note"] != "from allow" ||
		ref == nil || ref.Kind != "CronJob" || ref.Name != "allow" {
		t.Errorf("job %s: annotations %v, controller %+v", j.Name, j.Annotations, ref)
	}

	// Minute 2: Allow's first Job is done; Forbid's still runs, so it
	// skips; Replace's still runs, so it is deleted.
	finish(name("allow", m1), true)
	event("allow", "SawCompletedJob", "Saw completed job: "+name("allow", m1)+", condition: Complete")
	m2 := tick()
	expect("allow", []string{name("allow", m1), name("allow", m2)}, []string{name("allow", m2)}, m2)
	event("forbid", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
	expect("forbid", []string{name("forbid", m1)}, []string{name("forbid", m1)}, m1)
	expect("replace", []string{name("replace", m2)}, []string{name("replace", m2)}, m2)
	event("replace", "SuccessfulDelete", "Deleted job "+name("replace", m1))
	allowed := &batchv1.CronJob{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "allow"}, allowed); err != nil {
		t.Fatal(err)
	}
	if got := allowed.Status.LastSuccessfulTime; got == nil || !got.Time.Equal(j.CreationTimestamp.Add(time.Second)) {
		t.Errorf("allow's lastSuccessfulTime %v, want %v", got, j.CreationTimestamp.Add(time.Second))
	}

	// Once Forbid's Job is done, the minute it skipped is started at
	// once, as no starting deadline bounds it.
	finish(name("forbid", m1), true)
	expect("forbid", []string{name("forbid", m1), name("forbid", m2)}, []string{name("forbid", m2)}, m2)
	finish(name("allow", m2), false)
	m3 := tick()
	expect("allow", []string{name("allow", m1), name("allow", m2), name("allow", m3)}, []string{name("allow", m3)}, m3)

	// Minute 4 and on: a third success prunes the oldest one, a second
	// failure the older failure.
	finish(name("allow", m3), true)
	m4 := tick()
	expect("allow", []string{name("allow", m1), name("allow", m2), name("allow", m3), name("allow", m4)}, []string{name("allow", m4)}, m4)
	finish(name("allow", m4), true)
	expect("allow", []string{name("allow", m2), name("allow", m3), name("allow", m4)}, nil, m4)
	event("allow", "SuccessfulDelete", "Deleted job "+name("allow", m1))
	m5 := tick()
	expect("allow", []string{name("allow", m2), name("allow", m3), name("allow", m4), name("allow", m5)}, []string{name("allow", m5)}, m5)
	finish(name("allow", m5), false)
	expect("allow", []string{name("allow", m3), name("allow", m4), name("allow", m5)}, nil, m5)
	event("allow", "SuccessfulDelete", "Deleted job "+name("allow", m2))

	// A new schedule under which minutes since creation were missed:
	// nothing starts until its next time.
	moved := &batchv1.CronJob{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "moved"}, moved); err != nil {
		t.Fatal(err)
	}
	moved.Spec.Schedule = "*/2 * * * *"
	if err := c.Update(ctx, moved); err != nil {
		t.Fatal(err)
	}
	now := fake.Now()
	even := now.Truncate(2 * time.Minute).Add(2 * time.Minute)
	envtest.EventuallyTrue(t, "a wake-up at the new schedule's next time", func() bool {
		return slices.ContainsFunc(fake.Waiting(), func(w time.Time) bool { return w.Equal(even.Add(100 * time.Millisecond)) })
	})
	envtest.Consistently(t, "no Job for a time missed before the change", func() error {
		if got, err := jobsOf("moved"); err != nil || len(got) > 0 {
			return fmt.Errorf("jobs %v, err %v", got, err)
		}
		return nil
	}, envtest.Within(time.Second))
	fake.Step(even.Add(time.Second).Sub(now))
	expect("moved", []string{name("moved", even)}, []string{name("moved", even)}, even)
}

// requeues is how many reconciles of the cronjob controller ended with a
// requeue for later.
func requeues(g prometheus.Gatherer) (float64, error) {
	mfs, err := g.Gather()
	if err != nil {
		return 0, err
	}
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["controller"] == "cronjob" && labels["result"] == "requeue_after" {
				return m.GetCounter().GetValue(), nil
			}
		}
	}
	return 0, nil
}

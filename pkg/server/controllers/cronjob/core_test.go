package cronjob

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/setpoint-dev/setpoint/pkg/cron"
)

// at reads an RFC 3339 time.
func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func mtime(s string) *metav1.Time { return &metav1.Time{Time: at(s)} }

// cronJob is a CronJob created at created, changed by the options.
func cronJob(schedule, created string, opts ...func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c", UID: "cj-uid", CreationTimestamp: metav1.Time{Time: at(created)}},
		Spec: batchv1.CronJobSpec{
			Schedule:          schedule,
			ConcurrencyPolicy: batchv1.AllowConcurrent,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyOnFailure, Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			}}}},
		},
	}
	for _, o := range opts {
		o(cj)
	}
	return cj
}

func lastScheduled(s string) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) { cj.Status.LastScheduleTime = mtime(s) }
}
func deadline(sec int64) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = &sec }
}
func zone(tz string) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) { cj.Spec.TimeZone = &tz }
}
func policy(p batchv1.ConcurrencyPolicy) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = p }
}
func active(names ...string) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) {
		for _, n := range names {
			cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{Kind: "Job", APIVersion: "batch/v1", Namespace: "ns", Name: n, UID: types.UID(n + "-uid")})
		}
	}
}

func parse(t *testing.T, cj *batchv1.CronJob) cron.Schedule {
	t.Helper()
	s, err := ParseSchedule(cj)
	if err != nil {
		t.Fatalf("parsing %q: %v", cj.Spec.Schedule, err)
	}
	return s
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.UTC().Format(time.RFC3339)
}

func TestDue(t *testing.T) {
	tests := []struct {
		name       string
		cj         *batchv1.CronJob
		now        string
		want       string // UTC, or "none"
		wantMissed Missed
		wantErr    error
	}{
		{"before the first time", cronJob("*/1 * * * *", "2025-01-06T10:00:30Z"), "2025-01-06T10:00:50Z", "none", NoneMissed, nil},
		{"the first time", cronJob("*/1 * * * *", "2025-01-06T10:00:30Z"), "2025-01-06T10:01:10Z", "2025-01-06T10:01:00Z", NoneMissed, nil},
		{"exactly on time", cronJob("*/1 * * * *", "2025-01-06T10:00:30Z"), "2025-01-06T10:01:00Z", "2025-01-06T10:01:00Z", NoneMissed, nil},
		{"a few missed since creation: the latest", cronJob("*/1 * * * *", "2025-01-06T10:00:30Z"), "2025-01-06T10:05:10Z", "2025-01-06T10:05:00Z", FewMissed, nil},
		{"counted from lastScheduleTime", cronJob("*/1 * * * *", "2025-01-01T00:00:00Z", lastScheduled("2025-01-06T10:04:00Z")), "2025-01-06T10:05:10Z", "2025-01-06T10:05:00Z", NoneMissed, nil},
		{"already started: nothing new", cronJob("*/1 * * * *", "2025-01-01T00:00:00Z", lastScheduled("2025-01-06T10:05:00Z")), "2025-01-06T10:05:10Z", "none", NoneMissed, nil},
		{"hourly, hours missed", cronJob("0 * * * *", "2025-01-06T10:30:00Z"), "2025-01-06T15:20:00Z", "2025-01-06T15:00:00Z", FewMissed, nil},
		{"101 missed is too many", cronJob("*/1 * * * *", "2025-01-06T08:19:30Z"), "2025-01-06T10:00:30Z", "2025-01-06T10:00:00Z", ManyMissed, nil},
		{"100 missed is not", cronJob("*/1 * * * *", "2025-01-06T08:20:30Z"), "2025-01-06T10:00:30Z", "2025-01-06T10:00:00Z", FewMissed, nil},
		{"the starting deadline bounds the count", cronJob("*/1 * * * *", "2025-01-06T08:00:30Z", deadline(200)), "2025-01-06T10:00:30Z", "2025-01-06T10:00:00Z", FewMissed, nil},
		{"nothing within the starting deadline", cronJob("0 * * * *", "2025-01-06T08:00:30Z", deadline(60)), "2025-01-06T10:30:00Z", "none", NoneMissed, nil},
		{"a schedule that never fires", cronJob("59 23 31 2 *", "2025-01-06T08:00:30Z"), "2025-01-06T10:30:00Z", "none", NoneMissed, ErrScheduleGap},
		{"irregular schedule: a real activation", cronJob("30 6-16/4 * * 1-5", "2025-01-01T00:00:00Z", lastScheduled("2025-01-06T06:30:00Z")), "2025-01-07T11:00:00Z", "2025-01-07T10:30:00Z", FewMissed, nil},
		{"irregular schedule over a weekend", cronJob("30 6-16/4 * * 1-5", "2025-01-01T00:00:00Z", lastScheduled("2025-01-10T14:30:00Z")), "2025-01-13T07:00:00Z", "2025-01-13T06:30:00Z", NoneMissed, nil},
		{"@every counts from the last time", cronJob("@every 90m", "2025-01-06T10:00:00Z"), "2025-01-06T14:00:00Z", "2025-01-06T13:00:00Z", FewMissed, nil},
		{"@hourly", cronJob("@hourly", "2025-01-06T10:00:00Z"), "2025-01-06T11:59:59Z", "2025-01-06T11:00:00Z", NoneMissed, nil},
		// 09:00 in New York: 14:00 UTC in winter, 13:00 UTC from
		// Sunday 9 March 2025.
		{"spec.timeZone", cronJob("0 9 * * *", "2025-03-08T12:00:00Z", zone("America/New_York")), "2025-03-08T14:30:00Z", "2025-03-08T14:00:00Z", NoneMissed, nil},
		{"spec.timeZone across the switch to summer time", cronJob("0 9 * * *", "2025-03-08T12:00:00Z", zone("America/New_York")), "2025-03-10T13:30:00Z", "2025-03-10T13:00:00Z", FewMissed, nil},
		// 02:30 does not exist in New York on 9 March 2025: that day
		// does not fire.
		{"a wall time skipped by the spring-forward", cronJob("30 2 * * *", "2025-01-01T00:00:00Z", zone("America/New_York"), lastScheduled("2025-03-08T07:30:00Z")), "2025-03-10T12:00:00Z", "2025-03-10T06:30:00Z", NoneMissed, nil},
		// 01:30 happens twice in New York on 2 November 2025, at 05:30
		// (EDT) and 06:30 (EST) UTC: both fire.
		{"a wall time repeated by the fall-back", cronJob("30 1 * * *", "2025-01-01T00:00:00Z", zone("America/New_York"), lastScheduled("2025-11-02T05:30:00Z")), "2025-11-02T06:45:00Z", "2025-11-02T06:30:00Z", NoneMissed, nil},
		{"CRON_TZ in the schedule", cronJob("CRON_TZ=Asia/Tokyo 0 9 * * *", "2025-01-01T00:00:00Z"), "2025-01-02T00:10:00Z", "2025-01-02T00:00:00Z", NoneMissed, nil},
		{"TZ in the schedule", cronJob("TZ=Asia/Tokyo 0 9 * * *", "2025-01-01T00:00:00Z"), "2025-01-01T23:59:00Z", "none", NoneMissed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, missed, err := Due(tt.cj, at(tt.now), parse(t, tt.cj))
			if fmtTime(got) != tt.want || missed != tt.wantMissed || !errors.Is(err, tt.wantErr) {
				t.Errorf("Due = %s, %v, %v; want %s, %v, %v", fmtTime(got), missed, err, tt.want, tt.wantMissed, tt.wantErr)
			}
		})
	}
}

func TestRequeueAfter(t *testing.T) {
	tests := []struct {
		name string
		cj   *batchv1.CronJob
		now  string
		want time.Duration
	}{
		{"until the first time", cronJob("*/1 * * * *", "2025-01-06T10:00:30Z"), "2025-01-06T10:00:50Z", 10*time.Second + requeueDelay},
		{"after a start: the next time", cronJob("*/1 * * * *", "2025-01-06T10:00:30Z", lastScheduled("2025-01-06T10:01:00Z")), "2025-01-06T10:01:02Z", 58*time.Second + requeueDelay},
		{"missed times: the one after the latest", cronJob("0 * * * *", "2025-01-06T10:30:00Z"), "2025-01-06T15:20:00Z", 40*time.Minute + requeueDelay},
		{"the deadline is not applied", cronJob("0 * * * *", "2025-01-06T08:00:30Z", deadline(60)), "2025-01-06T10:30:00Z", 30*time.Minute + requeueDelay},
		{"in the CronJob's zone", cronJob("0 9 * * *", "2025-03-08T15:00:00Z", zone("America/New_York")), "2025-03-08T15:00:00Z", 22*time.Hour + requeueDelay},
		{"@every", cronJob("@every 90m", "2025-01-06T10:00:00Z"), "2025-01-06T14:00:00Z", 30*time.Minute + requeueDelay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RequeueAfter(tt.cj, at(tt.now), parse(t, tt.cj)); got != tt.want {
				t.Errorf("RequeueAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	type want struct {
		Start   string // UTC, or "" for none
		Replace bool
		Requeue time.Duration // 0 for none
		Events  []Event
	}
	dur := func(d time.Duration) time.Duration { return d + requeueDelay }
	deleting := func(cj *batchv1.CronJob) { cj.DeletionTimestamp = mtime("2025-01-06T10:00:00Z") }
	suspended := func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) }
	const created, now = "2025-01-06T09:59:30Z", "2025-01-06T10:01:30Z"
	tests := []struct {
		name string
		cj   *batchv1.CronJob
		now  string
		want want
	}{
		{"due: start", cronJob("*/1 * * * *", created), now, want{Start: "2025-01-06T10:01:00Z", Requeue: dur(30 * time.Second)}},
		{"nothing due yet", cronJob("*/1 * * * *", created, lastScheduled("2025-01-06T10:01:00Z")), now, want{Requeue: dur(30 * time.Second)}},
		{"being deleted", cronJob("*/1 * * * *", created, deleting), now, want{}},
		{"suspended", cronJob("*/1 * * * *", created, suspended), now, want{}},
		{"unknown time zone", cronJob("*/1 * * * *", created, zone("Mars/Olympus")), now, want{Events: []Event{
			{"Warning", "UnknownTimeZone", `invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus`}}}},
		{"an unknown time zone wins over suspend", cronJob("*/1 * * * *", created, zone("Mars/Olympus"), suspended), now, want{Events: []Event{
			{"Warning", "UnknownTimeZone", `invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus`}}}},
		{"unparseable schedule", cronJob("61 * * * *", created), now, want{Events: []Event{
			{"Warning", "UnparseableSchedule", `unparseable schedule: "61 * * * *" : end of range (61) above maximum (59): 61`}}}},
		{"a schedule that never fires", cronJob("59 23 31 2 *", created), now, want{Events: []Event{
			{"Warning", "InvalidSchedule", "invalid schedule: 59 23 31 2 * : time difference between two schedules is less than 1 second"}}}},
		// The search starts at the deadline, so nothing past it is
		// ever found: kube's MissSchedule check never fires.
		{"past the starting deadline: nothing due", cronJob("*/1 * * * *", created, deadline(10)), now, want{Requeue: dur(30 * time.Second)}},
		{"within the starting deadline", cronJob("*/1 * * * *", created, deadline(60)), now, want{Start: "2025-01-06T10:01:00Z", Requeue: dur(30 * time.Second)}},
		{"its Job already active", cronJob("*/1 * * * *", created, active(fmt.Sprintf("c-%d", at("2025-01-06T10:01:00Z").Unix()/60))), now, want{Requeue: dur(30 * time.Second)}},
		{"Allow with a Job running: start", cronJob("*/1 * * * *", created, active("c-1")), now, want{Start: "2025-01-06T10:01:00Z", Requeue: dur(30 * time.Second)}},
		{"Forbid with a Job running: skip", cronJob("*/1 * * * *", created, policy(batchv1.ForbidConcurrent), active("c-1")), now, want{Requeue: dur(30 * time.Second), Events: []Event{
			{"Normal", "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid"}}}},
		{"Forbid with none running: start", cronJob("*/1 * * * *", created, policy(batchv1.ForbidConcurrent)), now, want{Start: "2025-01-06T10:01:00Z", Requeue: dur(30 * time.Second)}},
		{"Replace with a Job running: replace it", cronJob("*/1 * * * *", created, policy(batchv1.ReplaceConcurrent), active("c-1")), now, want{Start: "2025-01-06T10:01:00Z", Replace: true, Requeue: dur(30 * time.Second)}},
		{"Replace with none running: start", cronJob("*/1 * * * *", created, policy(batchv1.ReplaceConcurrent)), now, want{Start: "2025-01-06T10:01:00Z", Requeue: dur(30 * time.Second)}},
		{"too many missed: warn and start the latest", cronJob("*/1 * * * *", "2025-01-06T08:00:30Z"), now, want{Start: "2025-01-06T10:01:00Z", Requeue: dur(30 * time.Second), Events: []Event{
			{"Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew"}}}},
		{"a zone in the schedule: warn and start", cronJob("CRON_TZ=UTC */1 * * * *", created), now, want{Start: "2025-01-06T10:01:00Z", Requeue: dur(30 * time.Second), Events: []Event{
			{"Warning", "UnsupportedSchedule", `CRON_TZ or TZ used in schedule "CRON_TZ=UTC */1 * * * *" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`}}}},
		{"daily in New York: after the start, tomorrow", cronJob("0 5 * * *", "2025-01-01T00:00:00Z", zone("America/New_York"), lastScheduled("2025-01-05T10:00:00Z")), "2025-01-06T10:00:05Z", want{Start: "2025-01-06T10:00:00Z", Requeue: dur(24*time.Hour - 5*time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.cj, at(tt.now))
			got := want{Replace: d.Replace, Events: d.Events}
			if !d.Start.IsZero() {
				got.Start = d.Start.UTC().Format(time.RFC3339)
			}
			if d.Requeue != nil {
				got.Requeue = *d.Requeue
			}
			if !equality.Semantic.DeepEqual(got, tt.want) {
				t.Errorf("Decide =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestJobFor(t *testing.T) {
	scheduled := at("2025-01-06T10:01:00Z")
	wantName := fmt.Sprintf("c-%d", scheduled.Unix()/60)
	tests := []struct {
		name            string
		cj              *batchv1.CronJob
		wantAnnotations map[string]string
		wantLabels      map[string]string
	}{
		{"no zone: UTC", cronJob("*/1 * * * *", "2025-01-01T00:00:00Z"),
			map[string]string{"batch.kubernetes.io/cronjob-scheduled-timestamp": "2025-01-06T10:01:00Z"}, map[string]string{}},
		{"in the CronJob's zone, template metadata kept", cronJob("*/1 * * * *", "2025-01-01T00:00:00Z", zone("America/New_York"), func(cj *batchv1.CronJob) {
			cj.Spec.JobTemplate.Labels = map[string]string{"app": "x"}
			cj.Spec.JobTemplate.Annotations = map[string]string{"note": "y"}
		}), map[string]string{"batch.kubernetes.io/cronjob-scheduled-timestamp": "2025-01-06T05:01:00-05:00", "note": "y"}, map[string]string{"app": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := JobFor(tt.cj, scheduled)
			if err != nil {
				t.Fatal(err)
			}
			wantRefs := []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "c", UID: "cj-uid", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
			if j.Name != wantName || j.Namespace != "ns" || !equality.Semantic.DeepEqual(j.Annotations, tt.wantAnnotations) ||
				!equality.Semantic.DeepEqual(j.Labels, tt.wantLabels) || !equality.Semantic.DeepEqual(j.OwnerReferences, wantRefs) ||
				!equality.Semantic.DeepEqual(j.Spec, tt.cj.Spec.JobTemplate.Spec) {
				t.Errorf("JobFor = %+v", j.ObjectMeta)
			}
			// The template is not shared with the Job.
			j.Labels["changed"] = "yes"
			if _, ok := tt.cj.Spec.JobTemplate.Labels["changed"]; ok {
				t.Error("the Job's labels alias the template's")
			}
		})
	}
}

func TestJobName(t *testing.T) {
	tests := []struct {
		name, at, want string
	}{
		{"c", "1970-01-01T00:01:00Z", "c-1"},
		{"hello", "2025-01-06T10:01:00Z", "hello-28935961"},
		// Seconds within the minute do not change the name (@every).
		{"hello", "2025-01-06T10:01:59Z", "hello-28935961"},
		{"hello", "2025-01-06T05:01:00-05:00", "hello-28935961"},
	}
	for _, tt := range tests {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: tt.name}}
		if got := JobName(cj, at(tt.at)); got != tt.want {
			t.Errorf("JobName(%s, %s) = %s, want %s", tt.name, tt.at, got, tt.want)
		}
	}
}

// job is a Job of c named name, started at started ("" for not yet),
// with a True condition of type cond ("" for running).
func job(name, started string, cond batchv1.JobConditionType) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid")}}
	if started != "" {
		j.Status.StartTime = mtime(started)
	}
	if cond != "" {
		j.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue}}
		if cond == batchv1.JobComplete {
			j.Status.CompletionTime = &metav1.Time{Time: j.Status.StartTime.Add(time.Minute)}
		}
	}
	return j
}

func TestPrune(t *testing.T) {
	limits := func(ok, failed *int32) func(*batchv1.CronJob) {
		return func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit = ok, failed
		}
	}
	jobs := []*batchv1.Job{
		job("ok-3", "2025-01-06T10:03:00Z", batchv1.JobComplete),
		job("ok-1", "2025-01-06T10:01:00Z", batchv1.JobComplete),
		job("ok-2", "2025-01-06T10:02:00Z", batchv1.JobComplete),
		job("fail-2", "2025-01-06T10:02:00Z", batchv1.JobFailed),
		job("fail-1b", "2025-01-06T10:01:00Z", batchv1.JobFailed),
		job("fail-1a", "2025-01-06T10:01:00Z", batchv1.JobFailed),
		job("fail-never", "", batchv1.JobFailed),
		job("running-0", "2025-01-06T10:00:00Z", ""),
		// False conditions do not finish a Job.
		func() *batchv1.Job {
			j := job("suspended", "2025-01-06T09:00:00Z", "")
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionFalse}}
			return j
		}(),
	}
	tests := []struct {
		name string
		cj   *batchv1.CronJob
		want []string
	}{
		{"no limits: keep all", cronJob("* * * * *", "2025-01-01T00:00:00Z"), nil},
		{"kube's defaults, 3 and 1", cronJob("* * * * *", "2025-01-01T00:00:00Z", limits(ptr.To[int32](3), ptr.To[int32](1))),
			[]string{"fail-1a", "fail-1b", "fail-2"}},
		{"oldest first, successful first", cronJob("* * * * *", "2025-01-01T00:00:00Z", limits(ptr.To[int32](1), ptr.To[int32](2))),
			[]string{"ok-1", "ok-2", "fail-1a", "fail-1b"}},
		{"zero keeps none", cronJob("* * * * *", "2025-01-01T00:00:00Z", limits(ptr.To[int32](0), nil)),
			[]string{"ok-1", "ok-2", "ok-3"}},
		{"unstarted last", cronJob("* * * * *", "2025-01-01T00:00:00Z", limits(nil, ptr.To[int32](0))),
			[]string{"fail-1a", "fail-1b", "fail-2", "fail-never"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, j := range Prune(tt.cj, slices.Clone(jobs)) {
				got = append(got, j.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Prune = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestObserve(t *testing.T) {
	names := func(jobs []*batchv1.Job) []string {
		var out []string
		for _, j := range jobs {
			out = append(out, j.Name)
		}
		return out
	}
	tests := []struct {
		name           string
		cj             *batchv1.CronJob
		jobs           []*batchv1.Job
		wantActive     []string
		wantSuccess    string // UTC, or "none"
		wantUnexpected []string
		wantGone       []string
		wantEvents     []Event
	}{
		{"finished Jobs leave active", cronJob("* * * * *", "2025-01-01T00:00:00Z", active("a", "b", "c")),
			[]*batchv1.Job{job("a", "2025-01-06T10:00:00Z", batchv1.JobComplete), job("b", "2025-01-06T10:01:00Z", batchv1.JobFailed), job("c", "2025-01-06T10:02:00Z", "")},
			[]string{"c"}, "2025-01-06T10:01:00Z", nil, nil, []Event{
				{"Normal", "SawCompletedJob", "Saw completed job: a, condition: Complete"},
				{"Normal", "SawCompletedJob", "Saw completed job: b, condition: Failed"}}},
		{"the latest success, listed or not", cronJob("* * * * *", "2025-01-01T00:00:00Z", func(cj *batchv1.CronJob) { cj.Status.LastSuccessfulTime = mtime("2025-01-06T09:00:00Z") }),
			[]*batchv1.Job{job("old", "2025-01-06T08:00:00Z", batchv1.JobComplete), job("new", "2025-01-06T10:00:00Z", batchv1.JobComplete), job("newer-failed", "2025-01-06T11:00:00Z", batchv1.JobFailed)},
			nil, "2025-01-06T10:01:00Z", nil, nil, nil},
		{"an earlier success does not go back", cronJob("* * * * *", "2025-01-01T00:00:00Z", func(cj *batchv1.CronJob) { cj.Status.LastSuccessfulTime = mtime("2025-01-06T11:00:00Z") }),
			[]*batchv1.Job{job("old", "2025-01-06T08:00:00Z", batchv1.JobComplete)},
			nil, "2025-01-06T11:00:00Z", nil, nil, nil},
		{"running Jobs not listed, listed Jobs not found", cronJob("* * * * *", "2025-01-01T00:00:00Z", active("x", "y")),
			[]*batchv1.Job{job("x", "2025-01-06T10:00:00Z", ""), job("stray", "2025-01-06T10:00:00Z", ""), job("done-stray", "2025-01-06T10:00:00Z", batchv1.JobFailed)},
			[]string{"x", "y"}, "none", []string{"stray"}, []string{"y"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cj := tt.cj.DeepCopy()
			unexpected, gone, events := Observe(cj, tt.jobs)
			var activeNames, goneNames []string
			for _, r := range cj.Status.Active {
				activeNames = append(activeNames, r.Name)
			}
			for _, r := range gone {
				goneNames = append(goneNames, r.Name)
			}
			var success *time.Time
			if cj.Status.LastSuccessfulTime != nil {
				success = &cj.Status.LastSuccessfulTime.Time
			}
			if !slices.Equal(activeNames, tt.wantActive) || fmtTime(success) != tt.wantSuccess ||
				!slices.Equal(names(unexpected), tt.wantUnexpected) || !slices.Equal(goneNames, tt.wantGone) ||
				!equality.Semantic.DeepEqual(events, tt.wantEvents) {
				t.Errorf("Observe: active %v, lastSuccessfulTime %s, unexpected %v, gone %v, events %v\nwant %v, %s, %v, %v, %v",
					activeNames, fmtTime(success), names(unexpected), goneNames, events,
					tt.wantActive, tt.wantSuccess, tt.wantUnexpected, tt.wantGone, tt.wantEvents)
			}
		})
	}
}

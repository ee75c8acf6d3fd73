package registry

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func newCronJob(mutate func(*batchv1.CronJob)) *batchv1.CronJob {
	cj := &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default", UID: testJobUID},
		Spec: batchv1.CronJobSpec{
			Schedule: "*/1 * * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyOnFailure,
				Containers:    []corev1.Container{{Name: "hello", Image: "busybox"}},
			}}}},
		},
	}
	if mutate != nil {
		mutate(cj)
	}
	return cj
}

func createCronJob(t *testing.T, cj *batchv1.CronJob) (*batchv1.CronJob, field.ErrorList) {
	t.Helper()
	obj := toMap(t, cj)
	errs := cronJobStrategy{}.PrepareForCreate(time.Time{}, obj)
	return fromMap[batchv1.CronJob](t, obj), errs
}

func TestCronJobDefaults(t *testing.T) {
	got, errs := createCronJob(t, newCronJob(func(cj *batchv1.CronJob) { cj.Status.Active = []corev1.ObjectReference{{Name: "x"}} }))
	if len(errs) > 0 {
		t.Fatal(errorLines(errs))
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"concurrencyPolicy", got.Spec.ConcurrencyPolicy, batchv1.AllowConcurrent},
		{"suspend", got.Spec.Suspend, ptr.To(false)},
		{"successfulJobsHistoryLimit", got.Spec.SuccessfulJobsHistoryLimit, ptr.To[int32](3)},
		{"failedJobsHistoryLimit", got.Spec.FailedJobsHistoryLimit, ptr.To[int32](1)},
		{"status", got.Status, batchv1.CronJobStatus{}},
		// The job template gets pod defaults only; Job defaults apply
		// to each Job made from it.
		{"jobTemplate backoffLimit", got.Spec.JobTemplate.Spec.BackoffLimit, (*int32)(nil)},
		{"jobTemplate completions", got.Spec.JobTemplate.Spec.Completions, (*int32)(nil)},
		{"jobTemplate selector", got.Spec.JobTemplate.Spec.Selector, (*metav1.LabelSelector)(nil)},
		{"jobTemplate dnsPolicy", got.Spec.JobTemplate.Spec.Template.Spec.DNSPolicy, corev1.DNSClusterFirst},
		{"jobTemplate imagePullPolicy", got.Spec.JobTemplate.Spec.Template.Spec.Containers[0].ImagePullPolicy, corev1.PullAlways},
	} {
		if !equality.Semantic.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

// TestCronJobValidation: the errors kube-apiserver v1.33 gives (checked
// against it).
func TestCronJobValidation(t *testing.T) {
	long := strings.Repeat("c", 53)
	tests := []struct {
		name string
		cj   func(*batchv1.CronJob)
		want string
	}{
		{"valid", nil, ""},
		{"descriptor and zone", func(cj *batchv1.CronJob) {
			cj.Spec.Schedule, cj.Spec.TimeZone = "@hourly", ptr.To("America/New_York")
		}, ""},
		{"no schedule", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "" }, "spec.schedule: Required value"},
		{"a bad schedule", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "x" },
			`spec.schedule: Invalid value: "x": expected exactly 5 fields, found 1: [x]`},
		{"a field out of range", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "0 25 * * *" },
			`spec.schedule: Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25`},
		{"a zone in the schedule", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "CRON_TZ=UTC 61 * * * *" },
			`spec.schedule: Invalid value: "CRON_TZ=UTC 61 * * * *": end of range (61) above maximum (59): 61` + "\n" +
				`spec.schedule: Invalid value: "CRON_TZ=UTC 61 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`},
		{"an unknown zone", func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("Mars/Olympus") },
			`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`},
		{"a path for a zone", func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("../etc") },
			`spec.timeZone: Invalid value: "../etc": unknown time zone ../etc`},
		{"Local", func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("Local") },
			`spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`},
		{"an empty zone", func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("") },
			`spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string`},
		{"counts and policy", func(cj *batchv1.CronJob) {
			cj.Spec.StartingDeadlineSeconds = ptr.To[int64](-1)
			cj.Spec.ConcurrencyPolicy = "Sometimes"
			cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](-1), ptr.To[int32](-2)
		}, "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0\n" +
			`spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"` + "\n" +
			"spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0\n" +
			"spec.failedJobsHistoryLimit: Invalid value: -2: must be greater than or equal to 0"},
		{"the job template is a Job's spec", func(cj *batchv1.CronJob) {
			cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
			cj.Spec.JobTemplate.Spec.BackoffLimit = ptr.To[int32](-1)
		}, "spec.jobTemplate.spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0\n" +
			`spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`},
		{"a job template selects nothing itself", func(cj *batchv1.CronJob) {
			cj.Spec.JobTemplate.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
			cj.Spec.JobTemplate.Spec.ManualSelector = ptr.To(true)
		}, `spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: ` +
			"`selector` will be auto-generated\n" +
			`spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"`},
		{"a name too long for its Jobs", func(cj *batchv1.CronJob) { cj.Name = long },
			`metadata.name: Invalid value: "` + long + `": must be no more than 52 characters`},
		{"a generated name too long for its Jobs", func(cj *batchv1.CronJob) { cj.Name, cj.GenerateName = "", strings.Repeat("g", 48) },
			`metadata.name: Invalid value: "": must be no more than 52 characters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := createCronJob(t, newCronJob(tt.cj))
			if got := errorLines(errs); got != tt.want {
				t.Errorf("errors\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCronJobUpdate(t *testing.T) {
	tests := []struct {
		name   string
		stored func(*batchv1.CronJob)
		change func(*batchv1.CronJob)
		want   string
	}{
		{"schedule, zone, suspend and template may change", nil, func(cj *batchv1.CronJob) {
			cj.Spec.Schedule, cj.Spec.TimeZone, cj.Spec.Suspend = "@daily", ptr.To("Europe/Paris"), ptr.To(true)
			cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image = "busybox:1.36"
		}, ""},
		{"a bad schedule", nil, func(cj *batchv1.CronJob) { cj.Spec.Schedule = "* * * *" },
			`spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]`},
		{"a zone prefix stored before timeZone existed may stay", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "TZ=UTC 0 * * * *" },
			func(cj *batchv1.CronJob) { cj.Spec.Schedule = "TZ=UTC 30 * * * *" }, ""},
		{"but not beside timeZone", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "TZ=UTC 0 * * * *" },
			func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("UTC") },
			`spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule`},
		{"a long name may stay", func(cj *batchv1.CronJob) { cj.Name = strings.Repeat("c", 60) },
			func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Stored as an older server accepted it.
			old := newCronJob(tt.stored)
			defaultCronJob(old)
			old.Status.LastScheduleTime = &metav1.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
			cj := old.DeepCopy()
			tt.change(cj)
			cj.Status = batchv1.CronJobStatus{}
			obj := toMap(t, cj)
			errs := cronJobStrategy{}.PrepareForUpdate(time.Time{}, obj, toMap(t, old))
			if got := errorLines(errs); got != tt.want {
				t.Fatalf("errors\n got %s\nwant %s", got, tt.want)
			}
			if tt.want == "" {
				if st := fromMap[batchv1.CronJob](t, obj).Status; !equality.Semantic.DeepEqual(st, old.Status) {
					t.Errorf("status %+v, want the stored %+v", st, old.Status)
				}
			}
		})
	}
}

func TestCronJobStatusKeepsSpec(t *testing.T) {
	old := newCronJob(nil)
	defaultCronJob(old)
	cj := old.DeepCopy()
	cj.Spec.Schedule = "x"
	cj.Status.LastScheduleTime = &metav1.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	obj := toMap(t, cj)
	if errs := (cronJobStrategy{}).PrepareForStatusUpdate(obj, toMap(t, old)); len(errs) > 0 {
		t.Fatal(errorLines(errs))
	}
	got := fromMap[batchv1.CronJob](t, obj)
	if got.Spec.Schedule != old.Spec.Schedule || got.Status.LastScheduleTime == nil {
		t.Errorf("schedule %q lastScheduleTime %v, want the stored schedule and the new time", got.Spec.Schedule, got.Status.LastScheduleTime)
	}
}

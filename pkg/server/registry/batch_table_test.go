package registry

import (
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// columnNames lists a resource's columns after Name, "wide:" marking
// the -o wide ones.
func columnNames(r *Resource) []string {
	var out []string
	for _, c := range r.Columns {
		name := c.Name
		if c.Priority == 1 {
			name = "wide:" + name
		}
		out = append(out, name)
	}
	return out
}

// cells computes every column of r for obj.
func cells(t *testing.T, r *Resource, obj map[string]any, now time.Time) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, c := range r.Columns {
		if v, ok := c.Cell(obj, now); ok {
			out[c.Name] = v
		}
	}
	return out
}

func TestBatchColumns(t *testing.T) {
	for _, tt := range []struct {
		plural string
		want   []string
	}{
		{"jobs", []string{"Status", "Completions", "Duration", "Age", "wide:Containers", "wide:Images", "wide:Selector"}},
		{"cronjobs", []string{"Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age", "wide:Containers", "wide:Images", "wide:Selector"}},
	} {
		if got := columnNames(builtin("batch", tt.plural)); !slices.Equal(got, tt.want) {
			t.Errorf("%s columns %v, want %v", tt.plural, got, tt.want)
		}
	}
}

func TestJobCells(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	started := metav1.NewTime(now.Add(-90 * time.Second))
	ended := metav1.NewTime(now.Add(-30 * time.Second))
	cond := func(ty batchv1.JobConditionType, s corev1.ConditionStatus) batchv1.JobCondition {
		return batchv1.JobCondition{Type: ty, Status: s}
	}
	tests := []struct {
		name                          string
		job                           func(*batchv1.Job)
		status, completions, duration string
	}{
		{"new", nil, "Running", "0/1", ""},
		{"running", func(j *batchv1.Job) { j.Status.StartTime = &started }, "Running", "0/1", "90s"},
		{"complete", func(j *batchv1.Job) {
			j.Spec.Completions = ptr.To[int32](3)
			j.Status = batchv1.JobStatus{StartTime: &started, CompletionTime: &ended, Succeeded: 3,
				Conditions: []batchv1.JobCondition{cond(batchv1.JobSuccessCriteriaMet, "True"), cond(batchv1.JobComplete, "True")}}
		}, "Complete", "3/3", "60s"},
		{"failed", func(j *batchv1.Job) {
			j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobFailureTarget, "True"), cond(batchv1.JobFailed, "True")}
		}, "Failed", "0/1", ""},
		{"failing", func(j *batchv1.Job) {
			j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobFailureTarget, "True")}
		},
			"FailureTarget", "0/1", ""},
		{"suspended", func(j *batchv1.Job) { j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobSuspended, "True")} },
			"Suspended", "0/1", ""},
		{"resumed", func(j *batchv1.Job) {
			j.Status.Conditions = []batchv1.JobCondition{cond(batchv1.JobSuspended, "False")}
		},
			"Running", "0/1", ""},
		{"deleting", func(j *batchv1.Job) { j.DeletionTimestamp = &ended }, "Terminating", "0/1", ""},
		{"a work queue", func(j *batchv1.Job) { j.Spec.Completions, j.Spec.Parallelism = nil, ptr.To[int32](4) }, "Running", "0/1 of 4", ""},
		{"a work queue of one", func(j *batchv1.Job) { j.Spec.Completions, j.Spec.Parallelism = nil, ptr.To[int32](1) }, "Running", "0/1", ""},
	}
	r := builtin("batch", "jobs")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := newJob(nil)
			job.Spec.Completions = ptr.To[int32](1)
			job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "u"}}
			if tt.job != nil {
				tt.job(job)
			}
			got := cells(t, r, toMap(t, job), now)
			want := map[string]any{"Status": tt.status, "Completions": tt.completions, "Duration": tt.duration,
				"Containers": "pi", "Images": "perl:5.34", "Selector": "batch.kubernetes.io/controller-uid=u"}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s = %#v, want %#v", k, got[k], v)
				}
			}
		})
	}
}

func TestCronJobCells(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		cj   func(*batchv1.CronJob)
		want map[string]any
	}{
		{"new", func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(false) }, map[string]any{
			"Timezone": "<none>", "Suspend": "False", "Active": int64(0), "Last Schedule": "<none>",
			"Containers": "hello", "Images": "busybox", "Selector": "<none>"}},
		{"scheduled, in a zone", func(cj *batchv1.CronJob) {
			cj.Spec.TimeZone, cj.Spec.Suspend = ptr.To("Europe/Paris"), ptr.To(true)
			cj.Spec.JobTemplate.Spec.Template.Spec.Containers = append(cj.Spec.JobTemplate.Spec.Template.Spec.Containers, corev1.Container{Name: "side", Image: "nginx"})
			cj.Status.Active = []corev1.ObjectReference{{Name: "a"}, {Name: "b"}}
			cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-5 * time.Minute)}
		}, map[string]any{"Timezone": "Europe/Paris", "Suspend": "True", "Active": int64(2), "Last Schedule": "5m",
			"Containers": "hello,side", "Images": "busybox,nginx"}},
		{"suspend unset", nil, map[string]any{"Suspend": "<unset>"}},
	}
	r := builtin("batch", "cronjobs")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cells(t, r, toMap(t, newCronJob(tt.cj)), now)
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %#v, want %#v", k, got[k], v)
				}
			}
		})
	}
}

// TestJobFieldValues: Jobs are selected by status.successful, "0"
// before any pod succeeded.
func TestJobFieldValues(t *testing.T) {
	for _, tt := range []struct {
		status map[string]any
		want   string
	}{{nil, "0"}, {map[string]any{"succeeded": int64(3)}, "3"}} {
		obj := map[string]any{"status": tt.status}
		if got := (jobStrategy{}).FieldValues(obj)["status.successful"]; got != tt.want {
			t.Errorf("status %v: status.successful %q, want %q", tt.status, got, tt.want)
		}
	}
}

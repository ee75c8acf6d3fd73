package registry

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// templateColumns are the wide columns kube prints for a kind with a
// pod template at path: its containers' names and images, and the
// selector at selectorPath.
func templateColumns(selectorPath []string, path ...string) []Column {
	return []Column{
		{Name: "Containers", Type: "string", Priority: 1, Description: containersDoc, Value: templateContainers(containerName, path...)},
		{Name: "Images", Type: "string", Priority: 1, Description: imagesDoc, Value: templateContainers(containerImage, path...)},
		{Name: "Selector", Type: "string", Priority: 1, Description: batchv1.JobSpec{}.SwaggerDoc()["selector"], Value: func(obj map[string]any) any {
			return selectorCell(nestedMap(obj, false, selectorPath[:len(selectorPath)-1]...)[selectorPath[len(selectorPath)-1]])
		}},
	}
}

// selectorCell prints a LabelSelector as kubectl does, "<none>" when
// unset.
func selectorCell(v any) string {
	m, _ := v.(map[string]any)
	if m == nil {
		return metav1.FormatLabelSelector(nil)
	}
	var sel metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &sel); err != nil {
		return metav1.FormatLabelSelector(nil)
	}
	return metav1.FormatLabelSelector(&sel)
}

// jobColumns are kube's Job columns after Name.
func jobColumns() []Column {
	cols := []Column{
		{Name: "Status", Type: "string", Description: "Status of the job.", Value: func(obj map[string]any) any { return jobStatusCell(jobOf(obj), obj) }},
		{Name: "Completions", Type: "string", Description: batchv1.JobStatus{}.SwaggerDoc()["succeeded"], Value: func(obj map[string]any) any { return completionsCell(jobOf(obj)) }},
		{Name: "Duration", Type: "string", Description: "Time required to complete the job.", ValueAt: func(obj map[string]any, now time.Time) any {
			return durationCell(jobOf(obj), now)
		}},
		ageColumn,
	}
	return append(cols, templateColumns([]string{"spec", "selector"}, "spec", "template", "spec")...)
}

func jobOf(obj map[string]any) *batchv1.Job {
	var job batchv1.Job
	_ = toTyped(obj, &job)
	return &job
}

// jobStatusCell: the first of the finished, deleting, suspended and
// failing states that holds, else Running. As kube's printer, only the
// first condition of a type counts.
func jobStatusCell(job *batchv1.Job, obj map[string]any) string {
	first := func(t batchv1.JobConditionType) bool {
		for _, c := range job.Status.Conditions {
			if c.Type == t {
				return c.Status == "True"
			}
		}
		return false
	}
	switch {
	case first(batchv1.JobComplete):
		return "Complete"
	case first(batchv1.JobFailed):
		return "Failed"
	case nestedMap(obj, false, "metadata")["deletionTimestamp"] != nil:
		return "Terminating"
	case first(batchv1.JobSuspended):
		return "Suspended"
	case first(batchv1.JobFailureTarget):
		return "FailureTarget"
	}
	return "Running"
}

// completionsCell: succeeded of completions, or of one when any pod's
// success completes the Job (a work queue).
func completionsCell(job *batchv1.Job) string {
	succeeded := job.Status.Succeeded
	if c := job.Spec.Completions; c != nil {
		return fmt.Sprintf("%d/%d", succeeded, *c)
	}
	if p := job.Spec.Parallelism; p != nil && *p > 1 {
		return fmt.Sprintf("%d/1 of %d", succeeded, *p)
	}
	return fmt.Sprintf("%d/1", succeeded)
}

// durationCell: how long the Job ran, or has run so far; empty before
// it starts.
func durationCell(job *batchv1.Job, now time.Time) string {
	switch st := job.Status; {
	case st.StartTime == nil:
		return ""
	case st.CompletionTime == nil:
		return duration.HumanDuration(now.Sub(st.StartTime.Time))
	default:
		return duration.HumanDuration(st.CompletionTime.Sub(st.StartTime.Time))
	}
}

// cronJobColumns are kube's CronJob columns after Name.
func cronJobColumns() []Column {
	spec := batchv1.CronJobSpec{}.SwaggerDoc()
	status := batchv1.CronJobStatus{}.SwaggerDoc()
	cols := []Column{
		{Name: "Schedule", Type: "string", Description: spec["schedule"], Path: ".spec.schedule"},
		{Name: "Timezone", Type: "string", Description: spec["timeZone"], Value: func(obj map[string]any) any {
			if tz, ok := nestedMap(obj, false, "spec")["timeZone"].(string); ok {
				return tz
			}
			return "<none>"
		}},
		{Name: "Suspend", Type: "boolean", Description: spec["suspend"], Value: func(obj map[string]any) any {
			switch v := nestedMap(obj, false, "spec")["suspend"].(type) {
			case bool:
				if v {
					return "True"
				}
				return "False"
			}
			return "<unset>"
		}},
		{Name: "Active", Type: "integer", Description: status["active"], Value: func(obj map[string]any) any {
			active, _ := nestedMap(obj, false, "status")["active"].([]any)
			return int64(len(active))
		}},
		{Name: "Last Schedule", Type: "string", Description: status["lastScheduleTime"], ValueAt: func(obj map[string]any, now time.Time) any {
			ts, _ := nestedMap(obj, false, "status")["lastScheduleTime"].(string)
			if ts == "" {
				return "<none>"
			}
			return Since(ts, now)
		}},
		ageColumn,
	}
	return append(cols, templateColumns([]string{"spec", "jobTemplate", "spec", "selector"}, "spec", "jobTemplate", "spec", "template", "spec")...)
}

package registry

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func jobCondition(job *batchv1.Job, t batchv1.JobConditionType, s corev1.ConditionStatus) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == t && c.Status == s {
			return true
		}
	}
	return false
}

func jobTrue(job *batchv1.Job, t batchv1.JobConditionType) bool {
	return jobCondition(job, t, corev1.ConditionTrue)
}

func jobFinished(job *batchv1.Job) bool {
	return jobTrue(job, batchv1.JobComplete) || jobTrue(job, batchv1.JobFailed)
}

// jobStatusUpdateErrors is kube's ValidateJobUpdateStatus with the
// options its status strategy sets when JobManagedBy is on (v1.33's
// default): since a Job may be run by a controller other than kube's,
// the server holds every writer to the transitions kube's makes. Most
// rules apply only when the fields they read change, so a status that
// a spec change made inconsistent can still be written.
func jobStatusUpdateErrors(job, old *batchv1.Job) field.ErrorList {
	st, was := &job.Status, &old.Status
	changed := func(f func(*batchv1.Job) bool) bool { return f(job) != f(old) }
	has := func(t batchv1.JobConditionType) func(*batchv1.Job) bool {
		return func(j *batchv1.Job) bool { return jobTrue(j, t) }
	}
	finishedChanged := changed(jobFinished)
	completeChanged := changed(has(batchv1.JobComplete))
	failedChanged := changed(has(batchv1.JobFailed))
	completedIndexesChanged := st.CompletedIndexes != was.CompletedIndexes
	failedIndexesChanged := !ptr.Equal(st.FailedIndexes, was.FailedIndexes)
	activeChanged := st.Active != was.Active
	startChanged := !equality.Semantic.DeepEqual(st.StartTime, was.StartTime)
	completionChanged := !equality.Semantic.DeepEqual(st.CompletionTime, was.CompletionTime)
	indexed := ptr.Deref(job.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
	suspendedEmpty := ptr.Deref(job.Spec.Suspend, false) && ptr.Deref(job.Spec.Completions, -1) == 0
	resuming := jobTrue(old, batchv1.JobSuspended) && jobCondition(job, batchv1.JobSuspended, corev1.ConditionFalse)

	path := field.NewPath("status")
	conds := path.Child("conditions")
	omit := field.OmitValueType{}
	complete, failed := jobTrue(job, batchv1.JobComplete), jobTrue(job, batchv1.JobFailed)
	failureTarget, criteriaMet := jobTrue(job, batchv1.JobFailureTarget), jobTrue(job, batchv1.JobSuccessCriteriaMet)
	finished := jobFinished(job)

	var errs field.ErrorList
	for _, c := range []struct {
		name string
		v    *int32
	}{{"active", &st.Active}, {"succeeded", &st.Succeeded}, {"failed", &st.Failed}, {"ready", st.Ready}, {"terminating", st.Terminating}} {
		if c.v != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*c.v), path.Child(c.name))...)
		}
	}
	errs = append(errs, uncountedErrors(st.UncountedTerminatedPods, path.Child("uncountedTerminatedPods"))...)
	if (completeChanged || failedChanged) && complete && failed {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Complete=True and Failed=true conditions"))
	}
	if (completeChanged || changed(has(batchv1.JobFailureTarget))) && complete && failureTarget {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Complete=True and FailureTarget=true conditions"))
	}
	if completeChanged || completionChanged {
		if st.CompletionTime != nil && !complete {
			errs = append(errs, field.Invalid(path.Child("completionTime"), kubeValue{st.CompletionTime}, "cannot set completionTime when there is no Complete=True condition"))
		}
		if st.CompletionTime == nil && complete {
			errs = append(errs, field.Required(path.Child("completionTime"), "completionTime is required for Complete jobs"))
		}
	}
	if (startChanged || completionChanged) && st.StartTime != nil && st.CompletionTime != nil && st.CompletionTime.Before(st.StartTime) {
		errs = append(errs, field.Invalid(path.Child("completionTime"), kubeValue{st.CompletionTime}, "completionTime cannot be set before startTime"))
	}
	if (failedChanged || failedIndexesChanged) && failed && !failureTarget {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Failed=True condition without the FailureTarget=true condition"))
	}
	if (completeChanged || changed(has(batchv1.JobSuccessCriteriaMet))) && complete && !criteriaMet {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
	}
	if (finishedChanged || activeChanged) && st.Active > 0 && finished {
		errs = append(errs, field.Invalid(path.Child("active"), st.Active, "active>0 is invalid for finished job"))
	}
	if (finishedChanged || startChanged) && !suspendedEmpty && st.StartTime == nil && finished {
		errs = append(errs, field.Required(path.Child("startTime"), "startTime is required for finished job"))
	}
	if u := st.UncountedTerminatedPods; (finishedChanged || !equality.Semantic.DeepEqual(u, was.UncountedTerminatedPods)) && finished && u != nil && len(u.Failed)+len(u.Succeeded) > 0 {
		errs = append(errs, field.Invalid(path.Child("uncountedTerminatedPods"), kubeValue{u}, "uncountedTerminatedPods needs to be empty for finished job"))
	}
	if completions := job.Spec.Completions; completions != nil {
		if completedIndexesChanged {
			if _, err := countIndexes(st.CompletedIndexes, *completions); err != nil {
				errs = append(errs, field.Invalid(path.Child("completedIndexes"), st.CompletedIndexes, "error parsing completedIndexes: "+err.Error()))
			}
		}
		if failedIndexesChanged && job.Spec.BackoffLimitPerIndex != nil && st.FailedIndexes != nil {
			if _, err := countIndexes(*st.FailedIndexes, *completions); err != nil {
				errs = append(errs, field.Invalid(path.Child("failedIndexes"), kubeValue{st.FailedIndexes}, "error parsing failedIndexes: "+err.Error()))
			}
		}
	}
	if completedIndexesChanged && st.CompletedIndexes != "" && !indexed {
		errs = append(errs, field.Invalid(path.Child("completedIndexes"), st.CompletedIndexes, "cannot set non-empty completedIndexes when non-indexed completion mode"))
	}
	if failedIndexesChanged && job.Spec.BackoffLimitPerIndex == nil && st.FailedIndexes != nil {
		errs = append(errs, field.Invalid(path.Child("failedIndexes"), *st.FailedIndexes, "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
	}
	if (failedIndexesChanged || completedIndexesChanged) && job.Spec.Completions != nil && st.FailedIndexes != nil {
		if at, ok := indexesOverlap(st.CompletedIndexes, *st.FailedIndexes, *job.Spec.Completions); ok {
			errs = append(errs, field.Invalid(path.Child("failedIndexes"), *st.FailedIndexes, fmt.Sprintf("failedIndexes and completedIndexes overlap at index: %d", at)))
		}
	}
	if (finishedChanged || !ptr.Equal(st.Terminating, was.Terminating)) && ptr.Deref(st.Terminating, 0) > 0 && finished {
		errs = append(errs, field.Invalid(path.Child("terminating"), kubeValue{st.Terminating}, "terminating>0 is invalid for finished job"))
	}
	if (activeChanged || !ptr.Equal(st.Ready, was.Ready)) && st.Ready != nil && *st.Ready > st.Active {
		errs = append(errs, field.Invalid(path.Child("ready"), *st.Ready, "cannot set more ready pods than active"))
	}
	if criteriaMet && failed {
		errs = append(errs, field.Invalid(conds, omit, "cannot set SuccessCriteriaMet=True and Failed=true conditions"))
	}
	if criteriaMet && failureTarget {
		errs = append(errs, field.Invalid(conds, omit, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
	}
	if job.Spec.SuccessPolicy != nil && !criteriaMet && complete {
		errs = append(errs, field.Invalid(conds, omit, "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
	}

	// Transitions from the stored status.
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget} {
		if jobTrue(old, t) && !jobTrue(job, t) {
			errs = append(errs, field.Invalid(conds, omit, fmt.Sprintf("cannot disable the terminal %s=True condition", t)))
		}
	}
	if st.Failed < was.Failed {
		errs = append(errs, field.Invalid(path.Child("failed"), st.Failed, "cannot decrease the failed counter"))
	}
	// An Indexed Job with completions equal to parallelism may be
	// scaled down, which drops succeeded indexes.
	if (!indexed || !ptr.Equal(job.Spec.Completions, job.Spec.Parallelism)) && st.Succeeded < was.Succeeded {
		errs = append(errs, field.Invalid(path.Child("succeeded"), st.Succeeded, "cannot decrease the succeeded counter"))
	}
	if st.CompletionTime != nil && was.CompletionTime != nil && !st.CompletionTime.Equal(was.CompletionTime) {
		errs = append(errs, field.Invalid(path.Child("completionTime"), kubeValue{st.CompletionTime}, "completionTime cannot be mutated"))
	}
	if startChanged && !resuming && was.StartTime != nil && !ptr.Deref(job.Spec.Suspend, false) {
		errs = append(errs, field.Required(path.Child("startTime"), "startTime cannot be removed for unsuspended job"))
	}
	if jobTrue(old, batchv1.JobSuccessCriteriaMet) && !criteriaMet {
		errs = append(errs, field.Invalid(conds, omit, "cannot disable the SuccessCriteriaMet=True condition"))
	}
	if jobTrue(old, batchv1.JobComplete) && !jobTrue(old, batchv1.JobSuccessCriteriaMet) && criteriaMet {
		errs = append(errs, field.Invalid(conds, omit, "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
	}
	return errs
}

// uncountedErrors: the uids of terminated pods not yet counted are set
// and appear once across both lists.
func uncountedErrors(u *batchv1.UncountedTerminatedPods, path *field.Path) field.ErrorList {
	if u == nil {
		return nil
	}
	var errs field.ErrorList
	seen := sets.New[types.UID]()
	for _, list := range []struct {
		name string
		uids []types.UID
	}{{"succeeded", u.Succeeded}, {"failed", u.Failed}} {
		for i, uid := range list.uids {
			p := path.Child(list.name).Index(i)
			switch {
			case uid == "":
				errs = append(errs, field.Invalid(p, uid, "must not be empty"))
			case seen.Has(uid):
				errs = append(errs, field.Duplicate(p, uid))
			default:
				seen.Insert(uid)
			}
		}
	}
	return errs
}

// indexesOverlap finds the first index in both lists; intervals that do
// not parse are skipped (the format rule reports them).
func indexesOverlap(completed, failed string, completions int32) (int32, bool) {
	parse := func(list string) [][2]int32 {
		var out [][2]int32
		if list == "" {
			return nil
		}
		for _, in := range strings.Split(list, ",") {
			if lo, hi, err := indexInterval(in, completions); err == nil {
				out = append(out, [2]int32{lo, hi})
			}
		}
		return out
	}
	cs, fs := parse(completed), parse(failed)
	for i, j := 0, 0; i < len(cs) && j < len(fs); {
		c, f := cs[i], fs[j]
		if c[0] <= f[1] && f[0] <= c[1] {
			return max(c[0], f[0]), true
		}
		if c[0] <= f[0] {
			i++
		} else {
			j++
		}
	}
	return 0, false
}

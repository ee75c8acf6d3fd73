package registry

import (
	"regexp"
	"strings"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/cron"
	batchv1 "k8s.io/api/batch/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// cronJobStrategy holds batch/v1 CronJobs to kube-apiserver's rules: a
// schedule the CronJob controller can parse, a time zone it can load,
// and a job template valid as a Job's spec whose selector the
// controller will generate. The status is the controller's.
type cronJobStrategy struct{}

// maxCronJobName leaves room for the "-<minutes since epoch>" suffix
// the controller adds to name a Job, within a 63-character label.
const maxCronJobName = 52

func (cronJobStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	var cj batchv1.CronJob
	if errs := toTyped(obj, &cj); len(errs) > 0 {
		return errs
	}
	defaultCronJob(&cj)
	dropNewerJobFields(&cj.Spec.JobTemplate.Spec)
	cj.Status = batchv1.CronJobStatus{}
	errs := cronJobSpecErrors(&cj.Spec, nil, field.NewPath("spec"))
	// kube checks the name it will store; a generated name is the
	// prefix (cut to 58) and five characters.
	name := cj.Name
	if name == "" && cj.GenerateName != "" {
		name = cj.GenerateName[:min(len(cj.GenerateName), 58)] + "xxxxx"
	}
	if len(name) > maxCronJobName {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name, "must be no more than 52 characters"))
	}
	if len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &cj)
}

func (cronJobStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	var cj, prev batchv1.CronJob
	if errs := append(toTyped(obj, &cj), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	defaultCronJob(&cj)
	dropNewerJobFields(&cj.Spec.JobTemplate.Spec)
	cj.Status = prev.Status
	// No name rule on update: CronJobs named before it existed can
	// still be changed and deleted.
	if errs := cronJobSpecErrors(&cj.Spec, &prev.Spec, field.NewPath("spec")); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &cj)
}

// PrepareForStatusUpdate keeps the spec; kube checks nothing else of a
// CronJob's status write.
func (cronJobStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	return nil
}

// cronJobSpecErrors is kube's validateCronJobSpec; old is nil on
// create.
func cronJobSpecErrors(spec, old *batchv1.CronJobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Schedule == "" {
		errs = append(errs, field.Required(path.Child("schedule"), ""))
	} else {
		// A schedule stored with a zone prefix before timeZone existed
		// may keep it.
		errs = append(errs, scheduleErrors(spec.Schedule, old != nil && strings.Contains(old.Schedule, "TZ"), spec.TimeZone, path.Child("schedule"))...)
	}
	if spec.StartingDeadlineSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*spec.StartingDeadlineSeconds, path.Child("startingDeadlineSeconds"))...)
	}
	if old == nil || !ptr.Equal(old.TimeZone, spec.TimeZone) {
		errs = append(errs, timeZoneErrors(spec.TimeZone, path.Child("timeZone"))...)
	}
	errs = append(errs, oneOf(path.Child("concurrencyPolicy"), string(spec.ConcurrencyPolicy), "Allow", "Forbid", "Replace")...)
	errs = append(errs, jobTemplateErrors(&spec.JobTemplate.Spec, path.Child("jobTemplate", "spec"))...)
	for _, c := range []struct {
		name string
		v    *int32
	}{{"successfulJobsHistoryLimit", spec.SuccessfulJobsHistoryLimit}, {"failedJobsHistoryLimit", spec.FailedJobsHistoryLimit}} {
		if c.v != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*c.v), path.Child(c.name))...)
		}
	}
	return errs
}

func scheduleErrors(schedule string, allowTZ bool, timeZone *string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if _, err := cron.Parse(schedule); err != nil {
		errs = append(errs, field.Invalid(path, schedule, err.Error()))
	}
	hasTZ := strings.Contains(schedule, "TZ")
	switch {
	case allowTZ && hasTZ && timeZone != nil:
		errs = append(errs, field.Invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
	case !allowTZ && hasTZ:
		errs = append(errs, field.Invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return errs
}

// timeZoneChars is what the IANA naming rules allow in one part of a
// zone name, with digits and "+" for legacy names.
var timeZoneChars = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// timeZoneErrors refuses a zone the controller could not load; the
// name is checked before it is loaded, so that no path outside the
// zone database is read.
func timeZoneErrors(tz *string, path *field.Path) field.ErrorList {
	if tz == nil {
		return nil
	}
	if *tz == "" {
		return field.ErrorList{field.Invalid(path, "", "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !timeZoneChars.MatchString(part) {
			return field.ErrorList{field.Invalid(path, *tz, "unknown time zone "+*tz)}
		}
	}
	var errs field.ErrorList
	if strings.EqualFold(*tz, "Local") {
		errs = append(errs, field.Invalid(path, *tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		errs = append(errs, field.Invalid(path, *tz, err.Error()))
	}
	return errs
}

// jobTemplateErrors is kube's ValidateJobTemplateSpec: a Job spec
// whose selector the controller generates for each Job it makes.
func jobTemplateErrors(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	errs := jobTemplateSpecErrors(spec, path)
	if spec.Selector != nil {
		errs = append(errs, field.Invalid(path.Child("selector"), metaValue(spec.Selector), "`selector` will be auto-generated"))
	}
	if ptr.Deref(spec.ManualSelector, false) {
		errs = append(errs, field.NotSupported(path.Child("manualSelector"), true, []string{"nil", "false"}))
	}
	return errs
}

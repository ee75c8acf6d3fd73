package registry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// Bounds of kube's Job validation.
const (
	maxIndexedParallelism           = 100_000 // caps status.completedIndexes
	maxFailedIndexes                = 100_000
	completionsSoftLimit            = 100_000
	parallelismForHighCompletions   = 10_000
	maxFailedIndexesHighCompletions = 10_000
	maxPodFailurePolicyRules        = 20
	maxOnExitCodesValues            = 255
	maxOnPodConditionsPatterns      = 20
	maxManagedByLength              = 63
	maxSucceededIndexesLength       = 64 * 1024
	maxSuccessPolicyRules           = 20
)

// jobErrors is kube's ValidateJob without the metadata checks the
// store makes.
func jobErrors(job *batchv1.Job, opts jobOptions) field.ErrorList {
	errs := generatedSelectorErrors(job, opts.prefixedLabels)
	errs = append(errs, jobSpecErrors(&job.Spec, field.NewPath("spec"), opts)...)
	if ptr.Deref(job.Spec.CompletionMode, "") == batchv1.IndexedCompletion && job.Spec.Completions != nil && *job.Spec.Completions > 0 {
		// Indexed pods are named and hosted as <job>-<index>.
		last := fmt.Sprintf("%s-%d", job.Name, *job.Spec.Completions-1)
		if len(validation.IsDNS1123Label(last)) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), job.Name, "will not able to create pod with invalid DNS label: "+last))
		}
	}
	return errs
}

// generatedSelectorErrors checks that a generated selector and the
// template's labels are still the ones generated for this Job.
func generatedSelectorErrors(job *batchv1.Job, prefixed bool) field.ErrorList {
	if ptr.Deref(job.Spec.ManualSelector, false) || job.Spec.Selector == nil {
		return nil
	}
	var errs field.ErrorList
	if job.UID == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "uid"), ""))
	}
	meta := field.NewPath("spec", "template", "metadata")
	want := map[string]string{legacyControllerUIDLabel: string(job.UID), legacyJobNameLabel: job.Name}
	keys := []string{legacyControllerUIDLabel, legacyJobNameLabel}
	if prefixed {
		want[jobControllerUIDLabel], want[jobNameLabel] = string(job.UID), job.Name
		keys = append(keys, jobControllerUIDLabel, jobNameLabel)
	}
	for _, key := range keys {
		errs = append(errs, hasLabelErrors(job.Spec.Template.Labels, meta, key, want[key])...)
	}
	if sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector); err == nil && !sel.Matches(labels.Set(want)) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), metaValue(job.Spec.Selector), "`selector` not auto-generated"))
	}
	return errs
}

// hasLabelErrors is kube's ValidateHasLabel.
func hasLabelErrors(ls map[string]string, meta *field.Path, key, want string) field.ErrorList {
	path := meta.Child("labels").Key(key)
	got, ok := ls[key]
	switch {
	case !ok:
		return field.ErrorList{field.Required(path, fmt.Sprintf("must be '%s'", want))}
	case got != want:
		return field.ErrorList{field.Invalid(path, kubeValue{ls}, fmt.Sprintf("must be '%s'", want))}
	}
	return nil
}

// jobSpecErrors is kube's ValidateJobSpec: the template rules and a
// selector that matches the template.
func jobSpecErrors(spec *batchv1.JobSpec, path *field.Path, opts jobOptions) field.ErrorList {
	errs := jobTemplateSpecErrors(spec, path)
	if spec.Selector == nil {
		errs = append(errs, field.Required(path.Child("selector"), ""))
	} else {
		errs = append(errs, metavalidation.ValidateLabelSelector(spec.Selector,
			metavalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.invalidSelectorValues}, path.Child("selector"))...)
	}
	if sel, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !sel.Matches(labels.Set(spec.Template.Labels)) {
		errs = append(errs, field.Invalid(path.Child("template", "metadata", "labels"), kubeValue{spec.Template.Labels}, "`selector` does not match template `labels`"))
	}
	return errs
}

// jobTemplateSpecErrors is kube's validateJobSpec, the rules a Job and
// a CronJob's job template share.
func jobTemplateSpecErrors(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, c := range []struct {
		name string
		v    *int32
	}{
		{"parallelism", spec.Parallelism}, {"completions", spec.Completions}, {"backoffLimit", spec.BackoffLimit},
		{"ttlSecondsAfterFinished", spec.TTLSecondsAfterFinished}, {"backoffLimitPerIndex", spec.BackoffLimitPerIndex},
	} {
		if c.v != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*c.v), path.Child(c.name))...)
		}
		if c.name == "completions" && spec.ActiveDeadlineSeconds != nil {
			// kube checks the deadline third, and only that it is not
			// negative.
			errs = append(errs, apivalidation.ValidateNonnegativeField(*spec.ActiveDeadlineSeconds, path.Child("activeDeadlineSeconds"))...)
		}
	}
	if spec.MaxFailedIndexes != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*spec.MaxFailedIndexes), path.Child("maxFailedIndexes"))...)
		if spec.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Required(path.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	if spec.ManagedBy != nil {
		errs = append(errs, validation.IsDomainPrefixedPath(path.Child("managedBy"), *spec.ManagedBy)...)
		if len(*spec.ManagedBy) > maxManagedByLength {
			errs = append(errs, field.TooLong(path.Child("managedBy"), "", maxManagedByLength))
		}
	}
	errs = append(errs, completionModeErrors(spec, path)...)
	if spec.PodFailurePolicy != nil {
		errs = append(errs, podFailurePolicyErrors(spec, path.Child("podFailurePolicy"))...)
	}
	if spec.SuccessPolicy != nil {
		if ptr.Deref(spec.CompletionMode, "") != batchv1.IndexedCompletion {
			errs = append(errs, field.Invalid(path.Child("successPolicy"), kubeValue{*spec.SuccessPolicy}, "requires indexed completion mode"))
		} else {
			errs = append(errs, successPolicyErrors(spec, path.Child("successPolicy"))...)
		}
	}
	if p := spec.PodReplacementPolicy; p != nil {
		// A pod failure policy needs the pod's final state, so only
		// failed pods are replaced.
		if spec.PodFailurePolicy != nil {
			if *p != batchv1.Failed {
				errs = append(errs, field.NotSupported(path.Child("podReplacementPolicy"), *p, []string{string(batchv1.Failed)}))
			}
		} else if *p != batchv1.Failed && *p != batchv1.TerminatingOrFailed {
			errs = append(errs, field.NotSupported(path.Child("podReplacementPolicy"), *p, []string{string(batchv1.Failed), string(batchv1.TerminatingOrFailed)}))
		}
	}
	errs = append(errs, podTemplateSpecErrors(&spec.Template, path.Child("template"))...)
	// A Job's pods end; Always (also the pod default) never lets them.
	restart := path.Child("template", "spec", "restartPolicy")
	switch rp := spec.Template.Spec.RestartPolicy; {
	case rp == corev1.RestartPolicyAlways || rp == "":
		errs = append(errs, field.Required(restart, `valid values: "OnFailure", "Never"`))
	case rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.NotSupported(restart, rp, []string{string(corev1.RestartPolicyOnFailure), string(corev1.RestartPolicyNever)}))
	case spec.PodFailurePolicy != nil && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.Invalid(restart, rp, `only "Never" is supported when podFailurePolicy is specified`))
	}
	return errs
}

func completionModeErrors(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	mode := ptr.Deref(spec.CompletionMode, "")
	if spec.CompletionMode != nil && mode != batchv1.NonIndexedCompletion && mode != batchv1.IndexedCompletion {
		errs = append(errs, field.NotSupported(path.Child("completionMode"), kubeValue{spec.CompletionMode},
			[]string{string(batchv1.NonIndexedCompletion), string(batchv1.IndexedCompletion)}))
	}
	if mode == batchv1.IndexedCompletion {
		if spec.Completions == nil {
			errs = append(errs, field.Required(path.Child("completions"), "when completion mode is Indexed"))
		}
		if spec.Parallelism != nil && *spec.Parallelism > maxIndexedParallelism {
			errs = append(errs, field.Invalid(path.Child("parallelism"), *spec.Parallelism, fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxIndexedParallelism)))
		}
		if spec.Completions != nil && spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > *spec.Completions {
			errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "must be less than or equal to completions"))
		}
		if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexes {
			errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexes)))
		}
		if spec.Completions != nil && *spec.Completions > completionsSoftLimit && spec.BackoffLimitPerIndex != nil {
			const high = "when completions are above %d and used with backoff limit per index"
			if spec.MaxFailedIndexes == nil {
				errs = append(errs, field.Required(path.Child("maxFailedIndexes"), fmt.Sprintf("must be specified when completions is above %d", completionsSoftLimit)))
			}
			if spec.Parallelism != nil && *spec.Parallelism > parallelismForHighCompletions {
				errs = append(errs, field.Invalid(path.Child("parallelism"), *spec.Parallelism, fmt.Sprintf("must be less than or equal to %d "+high, parallelismForHighCompletions, completionsSoftLimit)))
			}
			if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexesHighCompletions {
				errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d "+high, maxFailedIndexesHighCompletions, completionsSoftLimit)))
			}
		}
	}
	if spec.CompletionMode == nil || mode == batchv1.NonIndexedCompletion {
		if spec.BackoffLimitPerIndex != nil {
			errs = append(errs, field.Invalid(path.Child("backoffLimitPerIndex"), *spec.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if spec.MaxFailedIndexes != nil {
			errs = append(errs, field.Invalid(path.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "requires indexed completion mode"))
		}
	}
	return errs
}

var (
	podFailureActions   = []string{"Count", "FailIndex", "FailJob", "Ignore"}
	onExitCodeOperators = []string{"In", "NotIn"}
	conditionStatuses   = []string{"False", "True", "Unknown"}
)

// quoted prints values as Go's %q prints a []string, as kube's
// messages list the valid ones.
func quoted(vs []string) string { return fmt.Sprintf("%q", vs) }

func podFailurePolicyErrors(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := spec.PodFailurePolicy.Rules
	rulesPath := path.Child("rules")
	if len(rules) > maxPodFailurePolicyRules {
		errs = append(errs, field.TooMany(rulesPath, len(rules), maxPodFailurePolicyRules))
	}
	names := sets.New[string]()
	for _, c := range spec.Template.Spec.Containers {
		names.Insert(c.Name)
	}
	for _, c := range spec.Template.Spec.InitContainers {
		names.Insert(c.Name)
	}
	for i := range rules {
		errs = append(errs, podFailureRuleErrors(spec, &rules[i], rulesPath.Index(i), names)...)
	}
	return errs
}

func podFailureRuleErrors(spec *batchv1.JobSpec, rule *batchv1.PodFailurePolicyRule, path *field.Path, containers sets.Set[string]) field.ErrorList {
	var errs field.ErrorList
	action := path.Child("action")
	switch {
	case rule.Action == "":
		errs = append(errs, field.Required(action, "valid values: "+quoted(podFailureActions)))
	case rule.Action == batchv1.PodFailurePolicyActionFailIndex:
		if spec.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Invalid(action, rule.Action, "requires the backoffLimitPerIndex to be set"))
		}
	case !slices.Contains(podFailureActions, string(rule.Action)):
		errs = append(errs, field.NotSupported(action, rule.Action, podFailureActions))
	}
	if oe := rule.OnExitCodes; oe != nil {
		errs = append(errs, onExitCodesErrors(oe, path.Child("onExitCodes"), containers)...)
	}
	if conds := rule.OnPodConditions; len(conds) > 0 {
		cp := path.Child("onPodConditions")
		if len(conds) > maxOnPodConditionsPatterns {
			errs = append(errs, field.TooMany(cp, len(conds), maxOnPodConditionsPatterns))
		}
		for j, c := range conds {
			for _, msg := range validation.IsQualifiedName(string(c.Type)) {
				errs = append(errs, field.Invalid(cp.Index(j).Child("type"), string(c.Type), msg))
			}
			status := cp.Index(j).Child("status")
			if c.Status == "" {
				errs = append(errs, field.Required(status, "valid values: "+quoted(conditionStatuses)))
			} else if !slices.Contains(conditionStatuses, string(c.Status)) {
				errs = append(errs, field.NotSupported(status, c.Status, conditionStatuses))
			}
		}
	}
	switch {
	case rule.OnExitCodes != nil && len(rule.OnPodConditions) > 0:
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported"))
	case rule.OnExitCodes == nil && len(rule.OnPodConditions) == 0:
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required"))
	}
	return errs
}

func onExitCodesErrors(oe *batchv1.PodFailurePolicyOnExitCodesRequirement, path *field.Path, containers sets.Set[string]) field.ErrorList {
	var errs field.ErrorList
	op := path.Child("operator")
	if oe.Operator == "" {
		errs = append(errs, field.Required(op, "valid values: "+quoted(onExitCodeOperators)))
	} else if !slices.Contains(onExitCodeOperators, string(oe.Operator)) {
		errs = append(errs, field.NotSupported(op, oe.Operator, onExitCodeOperators))
	}
	if oe.ContainerName != nil && !containers.Has(*oe.ContainerName) {
		errs = append(errs, field.Invalid(path.Child("containerName"), *oe.ContainerName, "must be one of the container or initContainer names in the pod template"))
	}
	values := path.Child("values")
	if len(oe.Values) == 0 {
		errs = append(errs, field.Invalid(values, kubeValue{oe.Values}, "at least one value is required"))
	} else if len(oe.Values) > maxOnExitCodesValues {
		errs = append(errs, field.TooMany(values, len(oe.Values), maxOnExitCodesValues))
	}
	seen := sets.New[int32]()
	for j, v := range oe.Values {
		if oe.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0 {
			errs = append(errs, field.Invalid(values.Index(j), v, "must not be 0 for the In operator"))
		}
		if seen.Has(v) {
			errs = append(errs, field.Duplicate(values.Index(j), v))
		}
		seen.Insert(v)
	}
	if !slices.IsSorted(oe.Values) {
		errs = append(errs, field.Invalid(values, kubeValue{oe.Values}, "must be ordered"))
	}
	return errs
}

func successPolicyErrors(spec *batchv1.JobSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := spec.SuccessPolicy.Rules
	rulesPath := path.Child("rules")
	if len(rules) == 0 {
		errs = append(errs, field.Required(rulesPath, "at least one rules must be specified when the successPolicy is specified"))
	}
	if len(rules) > maxSuccessPolicyRules {
		errs = append(errs, field.TooMany(rulesPath, len(rules), maxSuccessPolicyRules))
	}
	completions := ptr.Deref(spec.Completions, 0)
	for i, rule := range rules {
		rp := rulesPath.Index(i)
		if rule.SucceededCount == nil && rule.SucceededIndexes == nil {
			errs = append(errs, field.Required(rp, "at least one of succeededCount or succeededIndexes must be specified"))
		}
		var total int32
		if rule.SucceededIndexes != nil {
			ip := rp.Child("succeededIndexes")
			if len(*rule.SucceededIndexes) > maxSucceededIndexesLength {
				errs = append(errs, field.TooLong(ip, "", maxSucceededIndexesLength))
			}
			var err error
			if total, err = countIndexes(*rule.SucceededIndexes, completions); err != nil {
				errs = append(errs, field.Invalid(ip, *rule.SucceededIndexes, "error parsing succeededIndexes: "+err.Error()))
			}
		}
		if n := rule.SucceededCount; n != nil {
			cp := rp.Child("succeededCount")
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*n), cp)...)
			if *n > completions {
				errs = append(errs, field.Invalid(cp, *n, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions)))
			}
			if rule.SucceededIndexes != nil && *n > total {
				errs = append(errs, field.Invalid(cp, *n, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
			}
		}
	}
	return errs
}

// countIndexes reads an index list as the Job's status writes them,
// "1,3-5,7", and counts the indexes; kube's validateIndexesFormat.
func countIndexes(list string, completions int32) (int32, error) {
	if list == "" {
		return 0, nil
	}
	var total int32
	last := int32(-1)
	for _, interval := range strings.Split(list, ",") {
		lo, hi, err := indexInterval(interval, completions)
		if err != nil {
			return 0, err
		}
		if last >= lo {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", last, lo)
		}
		total += hi - lo + 1
		last = hi
	}
	return total, nil
}

// indexInterval reads "a" or "a-b" of indexes below completions.
func indexInterval(interval string, completions int32) (lo, hi int32, err error) {
	ends := strings.Split(interval, "-")
	if len(ends) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", interval)
	}
	var vs [2]int32
	for i, e := range ends {
		n, err := strconv.Atoi(e)
		if err != nil {
			return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", e)
		}
		if n >= int(completions) {
			return 0, 0, fmt.Errorf("too large index: %q", e)
		}
		vs[i] = int32(n)
	}
	if len(ends) == 1 {
		return vs[0], vs[0], nil
	}
	if vs[0] >= vs[1] {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", vs[0], vs[1])
	}
	return vs[0], vs[1], nil
}

// immutable is kube's ValidateImmutableField, with the new value shown
// as kube-apiserver v1.33 shows it.
func immutable(path *field.Path, now, was any) field.ErrorList {
	if equality.Semantic.DeepEqual(now, was) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, kubeValue{now}, apivalidation.FieldImmutableErrorMsg)}
}

// jobSpecUpdateErrors is kube's ValidateJobSpecUpdate beyond the create
// rules: what pods may already have been made from stays.
func jobSpecUpdateErrors(spec, old *batchv1.JobSpec, path *field.Path, opts jobOptions) field.ErrorList {
	var errs field.ErrorList
	if ptr.Deref(spec.CompletionMode, "") != batchv1.IndexedCompletion {
		errs = append(errs, immutable(path.Child("completions"), spec.Completions, old.Completions)...)
	} else if !equality.Semantic.DeepEqual(spec.Completions, old.Completions) && spec.Completions != nil && *spec.Completions != ptr.Deref(spec.Parallelism, 0) {
		// An Indexed Job scales by changing both together.
		errs = append(errs, field.Invalid(path.Child("completions"), kubeValue{spec.Completions}, "can only be modified in tandem with spec.parallelism"))
	}
	errs = append(errs, immutable(path.Child("selector"), spec.Selector, old.Selector)...)
	oldTemplate := &old.Template
	if opts.mutableScheduling {
		oldTemplate = schedulingFrom(&spec.Template, oldTemplate)
	}
	errs = append(errs, immutable(path.Child("template"), &spec.Template, oldTemplate)...)
	errs = append(errs, immutable(path.Child("completionMode"), spec.CompletionMode, old.CompletionMode)...)
	errs = append(errs, immutable(path.Child("podFailurePolicy"), spec.PodFailurePolicy, old.PodFailurePolicy)...)
	errs = append(errs, immutable(path.Child("backoffLimitPerIndex"), spec.BackoffLimitPerIndex, old.BackoffLimitPerIndex)...)
	errs = append(errs, immutable(path.Child("managedBy"), spec.ManagedBy, old.ManagedBy)...)
	errs = append(errs, immutable(path.Child("successPolicy"), spec.SuccessPolicy, old.SuccessPolicy)...)
	return errs
}

// schedulingFrom is the old template with the new one's scheduling
// directives (node affinity, node selector, tolerations, scheduling
// gates) and its labels and annotations: what a suspended Job that
// never started may change, for a queue to place it before it runs.
func schedulingFrom(now, old *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	out := old.DeepCopy()
	switch {
	case now.Spec.Affinity == nil && out.Spec.Affinity != nil:
		// Clearing the affinity is allowed if node affinity was all
		// it held.
		out.Spec.Affinity.NodeAffinity = nil
		if equality.Semantic.DeepEqual(*out.Spec.Affinity, corev1.Affinity{}) {
			out.Spec.Affinity = nil
		}
	case now.Spec.Affinity != nil && out.Spec.Affinity == nil:
		out.Spec.Affinity = &corev1.Affinity{NodeAffinity: now.Spec.Affinity.NodeAffinity}
	case now.Spec.Affinity != nil:
		out.Spec.Affinity.NodeAffinity = now.Spec.Affinity.NodeAffinity
	}
	out.Spec.NodeSelector = now.Spec.NodeSelector
	out.Spec.Tolerations = now.Spec.Tolerations
	out.Annotations = now.Annotations
	out.Labels = now.Labels
	out.Spec.SchedulingGates = now.Spec.SchedulingGates
	return out
}

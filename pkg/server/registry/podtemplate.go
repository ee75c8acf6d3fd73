package registry

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podTemplateStrategy holds PodTemplates to kube's rules: the template's
// pod spec is defaulted and validated as any pod template is (not as a
// Pod: no admission defaults, requests are not copied from limits).
type podTemplateStrategy struct{}

func (podTemplateStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	return preparePodTemplate(obj)
}

func (podTemplateStrategy) PrepareForUpdate(_ time.Time, obj, _ map[string]any) field.ErrorList {
	return preparePodTemplate(obj)
}

func preparePodTemplate(obj map[string]any) field.ErrorList {
	var t corev1.PodTemplate
	if errs := toTyped(obj, &t); len(errs) > 0 {
		return errs
	}
	defaultPodSpec(&t.Template.Spec)
	if errs := podTemplateSpecErrors(&t.Template, field.NewPath("template")); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &t)
}

// podTemplateSpecErrors is kube's ValidatePodTemplateSpec, for every
// kind that embeds a pod template.
func podTemplateSpecErrors(t *corev1.PodTemplateSpec, path *field.Path) field.ErrorList {
	errs := templateMetaErrors(t, path)
	errs = append(errs, podSpecErrors(&t.Spec, path.Child("spec"))...)
	if len(t.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(path.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// templateMetaErrors checks a pod template's labels and annotations,
// all kube checks of a StatefulSet's template beyond its restart policy.
func templateMetaErrors(t *corev1.PodTemplateSpec, path *field.Path) field.ErrorList {
	errs := metavalidation.ValidateLabels(t.Labels, path.Child("labels"))
	return append(errs, apivalidation.ValidateAnnotations(t.Annotations, path.Child("annotations"))...)
}

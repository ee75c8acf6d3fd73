package crdcleanup

import (
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Terminating condition's reasons and messages are those of the
// apiextensions API server's finalizer controller, so tools that watch
// a CRD's deletion read them unchanged.
const (
	ReasonInstanceDeletionInProgress = "InstanceDeletionInProgress"
	ReasonInstanceDeletionFailed     = "InstanceDeletionFailed"
	ReasonInstanceDeletionCompleted  = "InstanceDeletionCompleted"
	ReasonNeverEstablished           = "NeverEstablished"

	msgInProgress       = "CustomResource deletion is in progress"
	msgCompleted        = "removed all instances"
	msgNeverEstablished = "resource was never established"
)

func terminating(status apiextensionsv1.ConditionStatus, reason, msg string) apiextensionsv1.CustomResourceDefinitionCondition {
	return apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: status, Reason: reason, Message: msg,
	}
}

// setCondition puts want into the CRD's conditions and reports whether
// anything changed. lastTransitionTime moves only with the status.
func setCondition(crd *apiextensionsv1.CustomResourceDefinition, want apiextensionsv1.CustomResourceDefinitionCondition, now metav1.Time) bool {
	conds := crd.Status.Conditions
	i := slices.IndexFunc(conds, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool { return c.Type == want.Type })
	if i < 0 {
		want.LastTransitionTime = now
		crd.Status.Conditions = append(conds, want)
		return true
	}
	have := &conds[i]
	if have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
		return false
	}
	want.LastTransitionTime = have.LastTransitionTime
	if have.Status != want.Status {
		want.LastTransitionTime = now
	}
	*have = want
	return true
}

func isTrue(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	return slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
		return c.Type == t && c.Status == apiextensionsv1.ConditionTrue
	})
}

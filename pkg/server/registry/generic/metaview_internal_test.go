package generic

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestMetaViewValidatesAsUnstructured: for objects decoded through their
// Go type, validating through metaView finds exactly what validating the
// Unstructured finds, good entries and bad ones alike.
func TestMetaViewValidatesAsUnstructured(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	entry := func(manager string, op metav1.ManagedFieldsOperationType, fieldsType, sub string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", Time: &at, FieldsType: fieldsType,
			FieldsV1: metav1.NewFieldsV1(`{"f:data":{"f:k":{}}}`), Subresource: sub}
	}
	tests := []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
	}{
		{"none", nil},
		{"one update", []metav1.ManagedFieldsEntry{entry("kubectl", metav1.ManagedFieldsOperationUpdate, "FieldsV1", "")}},
		{"apply and status", []metav1.ManagedFieldsEntry{entry("a", metav1.ManagedFieldsOperationApply, "FieldsV1", ""), entry("b", metav1.ManagedFieldsOperationUpdate, "FieldsV1", "status")}},
		{"no operation", []metav1.ManagedFieldsEntry{entry("a", "", "FieldsV1", "")}},
		{"unknown operation", []metav1.ManagedFieldsEntry{entry("a", "Patch", "FieldsV1", "")}},
		{"other fields type", []metav1.ManagedFieldsEntry{entry("a", metav1.ManagedFieldsOperationUpdate, "FieldsV2", "")}},
		{"no manager", []metav1.ManagedFieldsEntry{entry("", metav1.ManagedFieldsOperationUpdate, "FieldsV1", "")}},
		{"long manager", []metav1.ManagedFieldsEntry{entry(strings.Repeat("m", 200), metav1.ManagedFieldsOperationUpdate, "FieldsV1", "")}},
		{"long subresource", []metav1.ManagedFieldsEntry{entry("a", metav1.ManagedFieldsOperationUpdate, "FieldsV1", strings.Repeat("s", 300))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x", ManagedFields: tt.entries}}
			obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: obj}
			validate := func(m metav1.Object) string {
				return fmt.Sprint(apivalidation.ValidateObjectMetaAccessor(m, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata")))
			}
			if got, want := validate(metaView{u}), validate(u); got != want {
				t.Errorf("metaView: %s\nUnstructured: %s", got, want)
			}
		})
	}
}

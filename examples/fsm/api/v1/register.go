package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of Pipeline.
var GroupVersion = schema.GroupVersion{Group: "fsm.example.com", Version: "v1"}

// AddToScheme registers Pipeline and PipelineList with a scheme, so a
// client maps the Go types to the kind and back.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Pipeline{}, &PipelineList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

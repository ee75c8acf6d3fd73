package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Pipeline is an ordered list of stages that the operator validates,
// provisions (as a ConfigMap) and publishes to the runners that would
// execute it.
type Pipeline struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PipelineSpec   `json:"spec,omitempty"`
	Status PipelineStatus `json:"status,omitempty"`
}

// PipelineSpec is what the user asks for.
type PipelineSpec struct {
	// Stages run in this order; each is a DNS label, unique in the
	// pipeline.
	Stages []string `json:"stages,omitempty"`
	// Suspend withdraws the pipeline from the runners without deleting
	// it.
	Suspend bool `json:"suspend,omitempty"`
}

// PipelineStatus is what the operator saw: one condition per state of
// its state machine, and Ready.
type PipelineStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// GetConditions and SetConditions make a Pipeline an fsm.Object.
func (p *Pipeline) GetConditions() []metav1.Condition { return p.Status.Conditions }

// SetConditions replaces the status conditions.
func (p *Pipeline) SetConditions(c []metav1.Condition) { p.Status.Conditions = c }

// PipelineList is a page of Pipelines, as a LIST returns them.
type PipelineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Pipeline `json:"items"`
}

// DeepCopyInto copies p into out; nothing is shared afterwards.
func (p *Pipeline) DeepCopyInto(out *Pipeline) {
	*out = *p
	p.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if p.Spec.Stages != nil {
		out.Spec.Stages = append([]string(nil), p.Spec.Stages...)
	}
	if p.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(p.Status.Conditions))
		for i := range p.Status.Conditions {
			p.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

// DeepCopy returns a copy of p.
func (p *Pipeline) DeepCopy() *Pipeline {
	if p == nil {
		return nil
	}
	out := new(Pipeline)
	p.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes Pipeline a runtime.Object.
func (p *Pipeline) DeepCopyObject() runtime.Object { return p.DeepCopy() }

// DeepCopyInto copies l into out.
func (l *PipelineList) DeepCopyInto(out *PipelineList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Pipeline, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l.
func (l *PipelineList) DeepCopy() *PipelineList {
	if l == nil {
		return nil
	}
	out := new(PipelineList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes PipelineList a runtime.Object.
func (l *PipelineList) DeepCopyObject() runtime.Object { return l.DeepCopy() }

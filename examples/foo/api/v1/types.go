package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Foo is the example's custom resource: its spec holds a value and its
// status says whether that value is the one the operator wants.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec,omitempty"`
	Status FooStatus `json:"status,omitempty"`
}

// FooSpec is what the user asks for.
type FooSpec struct {
	// Value is Ready when it is "bar".
	Value string `json:"value,omitempty"`
}

// FooStatus is what the operator saw.
type FooStatus struct {
	// Conditions holds Ready.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// FooList is a page of Foos, as a LIST returns them.
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Foo `json:"items"`
}

// DeepCopyInto copies f into out; nothing is shared afterwards. Caches
// hand out copies, so a reconciler may change what it reads.
func (f *Foo) DeepCopyInto(out *Foo) {
	*out = *f
	f.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	f.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of f.
func (f *Foo) DeepCopy() *Foo {
	if f == nil {
		return nil
	}
	out := new(Foo)
	f.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes Foo a runtime.Object.
func (f *Foo) DeepCopyObject() runtime.Object { return f.DeepCopy() }

// DeepCopyInto copies s into out.
func (s *FooStatus) DeepCopyInto(out *FooStatus) {
	*out = *s
	if s.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(s.Conditions))
		for i := range s.Conditions {
			s.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

// DeepCopyInto copies l into out.
func (l *FooList) DeepCopyInto(out *FooList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Foo, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l.
func (l *FooList) DeepCopy() *FooList {
	if l == nil {
		return nil
	}
	out := new(FooList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject makes FooList a runtime.Object.
func (l *FooList) DeepCopyObject() runtime.Object { return l.DeepCopy() }

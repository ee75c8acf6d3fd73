package daemonset

import (
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func nameIn(node string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}
}

func TestNodeAffinityFor(t *testing.T) {
	zoneA := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}
	preferred := []corev1.PreferredSchedulingTerm{{Weight: 5, Preference: zoneA}}
	podAnti := &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "zone"}}}
	pinned := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{nameIn("n1")}}
	tests := []struct {
		name string
		in   *corev1.Affinity
		want *corev1.Affinity
	}{
		{"none", nil, &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: pinned}}},
		{"pod anti-affinity kept", &corev1.Affinity{PodAntiAffinity: podAnti},
			&corev1.Affinity{PodAntiAffinity: podAnti, NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: pinned}}},
		{"preferred kept", &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred}},
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred, RequiredDuringSchedulingIgnoredDuringExecution: pinned}}},
		{"required terms replaced", &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{zoneA, nameIn("n9")}}}},
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: pinned}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.in.DeepCopy()
			got := NodeAffinityFor(tt.in, "n1")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("NodeAffinityFor =\n%+v\nwant\n%+v", got, tt.want)
			}
			if !reflect.DeepEqual(tt.in, before) {
				t.Errorf("the template's affinity was modified: %+v", tt.in)
			}
			if n, err := TargetNode(&corev1.Pod{Spec: corev1.PodSpec{Affinity: got}}); err != nil || n != "n1" {
				t.Errorf("TargetNode of the pinned pod = %q, %v; want n1", n, err)
			}
		})
	}
}

func TestTargetNode(t *testing.T) {
	aff := func(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	two := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want string // "" for none
	}{
		{"bound", corev1.PodSpec{NodeName: "n2", Affinity: aff(nameIn("n1"))}, "n2"},
		{"pinned", corev1.PodSpec{Affinity: aff(nameIn("n1"))}, "n1"},
		{"second term", corev1.PodSpec{Affinity: aff(corev1.NodeSelectorTerm{}, nameIn("n3"))}, "n3"},
		{"two names", corev1.PodSpec{Affinity: aff(two)}, ""},
		{"no affinity", corev1.PodSpec{}, ""},
		{"no terms", corev1.PodSpec{Affinity: aff()}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TargetNode(&corev1.Pod{Spec: tt.spec})
			if got != tt.want || (err != nil) != (tt.want == "") {
				t.Errorf("TargetNode = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestNewPod(t *testing.T) {
	tests := []struct {
		name       string
		ds         *appsv1.DaemonSet
		wantLabels map[string]string
		wantPrefix string
	}{
		{"hash and generation", newDS(), map[string]string{"app": "agent", "controller-revision-hash": "h1", "pod-template-generation": "2"}, "agent-"},
		{"no generation annotation", newDS(func(ds *appsv1.DaemonSet) { ds.Annotations = nil }), map[string]string{"app": "agent", "controller-revision-hash": "h1"}, "agent-"},
		{"long name", newDS(func(ds *appsv1.DaemonSet) { ds.Name = strings.Repeat("a", 253) }),
			map[string]string{"app": "agent", "controller-revision-hash": "h1", "pod-template-generation": "2"}, strings.Repeat("a", 253) + "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPod(tt.ds, "n1", "h1")
			if !reflect.DeepEqual(p.Labels, tt.wantLabels) {
				t.Errorf("labels %v, want %v", p.Labels, tt.wantLabels)
			}
			if p.GenerateName != tt.wantPrefix || p.Name != "" || p.Namespace != "ns" {
				t.Errorf("name %q generateName %q namespace %q", p.Name, p.GenerateName, p.Namespace)
			}
			ref := metav1.GetControllerOf(p)
			if ref == nil || ref.Kind != "DaemonSet" || ref.UID != "ds-uid" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
				t.Errorf("controller ref %+v", ref)
			}
			if p.Spec.NodeName != "" {
				t.Errorf("bound by name to %q; the scheduler binds daemon pods", p.Spec.NodeName)
			}
			if n, err := TargetNode(p); err != nil || n != "n1" {
				t.Errorf("target node %q, %v", n, err)
			}
			if len(p.Spec.Tolerations) != len(daemonTolerations) {
				t.Errorf("tolerations %v", p.Spec.Tolerations)
			}
			if tt.ds.Spec.Template.Labels["controller-revision-hash"] != "" || tt.ds.Spec.Template.Spec.Affinity != nil || tt.ds.Spec.Template.Spec.Tolerations != nil {
				t.Error("the template was modified")
			}
		})
	}
}

func TestUpdated(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		want   bool
	}{
		{"current hash", map[string]string{"controller-revision-hash": curHash}, true},
		{"current template generation", map[string]string{"controller-revision-hash": "oldhash", "pod-template-generation": "2"}, true},
		{"old both", map[string]string{"controller-revision-hash": "oldhash", "pod-template-generation": "1"}, false},
		{"unlabelled", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: tt.labels}}
			if got := Updated(p, newDS(), curHash); got != tt.want {
				t.Errorf("Updated = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTemplateHash(t *testing.T) {
	ds := newDS()
	one, two := int32(1), int32(2)
	other := newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "agent:2" })
	base := TemplateHash(&ds.Spec.Template, nil)
	tests := []struct {
		name       string
		t          *corev1.PodTemplateSpec
		count      *int32
		sameAsBase bool
	}{
		{"same template", &newDS().Spec.Template, nil, true},
		{"labels in another order hash alike", &newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Labels = map[string]string{"b": "2", "app": "agent"}
		}).Spec.Template, nil, false},
		{"another image", &other.Spec.Template, nil, false},
		{"collision count 1", &ds.Spec.Template, &one, false},
		{"collision count 2", &ds.Spec.Template, &two, false},
	}
	seen := map[string]string{base: "base"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TemplateHash(tt.t, tt.count)
			if (got == base) != tt.sameAsBase {
				t.Errorf("hash %q vs base %q, want same %v", got, base, tt.sameAsBase)
			}
			if strings.Trim(got, "bcdfghjklmnpqrstvwxz2456789") != "" || len(got) == 0 || len(got) > 10 {
				t.Errorf("hash %q is not in the generated-name alphabet", got)
			}
			if prev, ok := seen[got]; ok && !tt.sameAsBase {
				t.Errorf("hash %q also of %s", got, prev)
			}
			seen[got] = tt.name
		})
	}
	a := TemplateHash(&newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels = map[string]string{"b": "2", "app": "agent"} }).Spec.Template, nil)
	b := TemplateHash(&newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels = map[string]string{"app": "agent", "b": "2"} }).Spec.Template, nil)
	if a != b {
		t.Errorf("equal maps hash differently: %q, %q", a, b)
	}
}

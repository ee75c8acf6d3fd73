package registry

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func nodeAffinity(terms ...corev1.NodeSelectorTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
}

func expr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func podAffinity(terms ...corev1.PodAffinityTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}}
	}
}

func appSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
}

const labelValueMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

var affinityCases = []podCase{
	{"every kind of term, valid", func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{
			NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{expr("zone", "In", "a", "b"), expr("gpu", "DoesNotExist"), expr("cores", "Gt", "4")},
					MatchFields:      []corev1.NodeSelectorRequirement{expr("metadata.name", "NotIn", "node-1")},
				}}},
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 100,
					Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{expr("disk", "In", "not a label value")}}}},
			},
			PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: appSelector(), TopologyKey: "kubernetes.io/hostname", Namespaces: []string{"ns"}, MatchLabelKeys: []string{"rev"}}}},
			PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1,
				PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: appSelector(), TopologyKey: "zone", MismatchLabelKeys: []string{"team"}}}}},
		}
	}, nil},
	{"no node selector terms", nodeAffinity(), []string{
		"Required value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: must have at least one node selector term",
	}},
	{"node selector operators and values", nodeAffinity(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		expr("a", "In"), expr("b", "Exists", "x"), expr("c", "Gt", "1", "2"), expr("d", "Near", "x"), expr("e/f/g", "In", "bad value"),
	}}), []string{
		"Required value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: must be specified when `operator` is 'In' or 'NotIn'",
		"Forbidden spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
		"Required value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[2].values: must be specified single value when `operator` is 'Lt' or 'Gt'",
		"Invalid value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[3].operator: not a valid selector operator",
		"Invalid value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[4].key: a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
		"Invalid value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[4].values[0]: " + labelValueMsg,
	}},
	{"node field selectors", nodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
		expr("metadata.name", "In", "a", "b"), expr("metadata.name", "Exists"), expr("spec.unschedulable", "In", "true"), expr("metadata.name", "In", "Node_1"),
	}}), []string{
		"Required value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
		"Invalid value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[1].operator: not a valid selector operator",
		"Invalid value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[2].key: not a valid field selector key",
		"Invalid value spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[3].values[0]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
	}},
	{"preferred weights", func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{
			NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 0}, {Weight: 101}}},
			PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
				{Weight: -1, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: appSelector(), TopologyKey: "zone"}}}},
		}
	}, []string{
		"Invalid value spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: must be in the range 1-100",
		"Invalid value spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].weight: must be in the range 1-100",
		"Invalid value spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: must be in the range 1-100",
	}},
	{"pod affinity term without topology key", podAffinity(corev1.PodAffinityTerm{LabelSelector: appSelector()}), []string{
		"Required value spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: can not be empty",
		"Invalid value spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: name part must be non-empty",
		"Invalid value spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
	}},
	{"pod affinity selectors and namespaces", podAffinity(corev1.PodAffinityTerm{TopologyKey: "zone", Namespaces: []string{"Bad_NS"},
		LabelSelector:     &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "In"}}},
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a b"}},
	}), []string{
		"Required value spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values: must be specified when `operator` is 'In' or 'NotIn'",
		"Invalid value spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector.matchLabels: " + labelValueMsg,
		"Invalid value spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
	}},
	{"match label keys", func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": "web", "rev": "1"}
		podAffinity(
			corev1.PodAffinityTerm{TopologyKey: "zone", MatchLabelKeys: []string{"rev"}},
			corev1.PodAffinityTerm{TopologyKey: "zone", LabelSelector: appSelector(), MatchLabelKeys: []string{"app", "rev"}, MismatchLabelKeys: []string{"rev"}},
		)(p)
	}, []string{
		"Forbidden spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys: must not be specified when labelSelector is not set",
		// The create merged app In (web) into a selector matching app,
		// then rev In (1) and rev NotIn (1): kube indexes the term.
		"Invalid value spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1][0]: exists in both matchLabelKeys and labelSelector",
		"Invalid value spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1][1]: exists in both matchLabelKeys and labelSelector",
		"Invalid value spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].matchLabelKeys[1]: exists in both matchLabelKeys and mismatchLabelKeys",
	}},
}

func TestPodAffinityValidation(t *testing.T) { runPodCases(t, affinityCases) }

// TestAffinityLabelKeysMerged checks what the create stores: the pod's
// values for matchLabelKeys (In) and mismatchLabelKeys (NotIn) in the
// term's selector, keys the pod lacks left out.
func TestAffinityLabelKeysMerged(t *testing.T) {
	pod := basicPod()
	pod.Labels = map[string]string{"app": "web", "team": "a"}
	pod.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		TopologyKey: "zone", LabelSelector: &metav1.LabelSelector{}, MatchLabelKeys: []string{"app", "missing"}, MismatchLabelKeys: []string{"team"}}}}}
	got, errs := createPod(t, pod)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []metav1.LabelSelectorRequirement{{Key: "app", Operator: "In", Values: []string{"web"}}, {Key: "team", Operator: "NotIn", Values: []string{"a"}}}
	if sel := got.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector; !reflect.DeepEqual(sel.MatchExpressions, want) {
		t.Errorf("got %v, want %v", sel.MatchExpressions, want)
	}
}

func spread(cs ...corev1.TopologySpreadConstraint) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.TopologySpreadConstraints = cs }
}

var spreadCases = []podCase{
	{"valid constraints", spread(
		corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule", LabelSelector: appSelector(),
			MinDomains: ptr.To(int32(2)), NodeAffinityPolicy: ptr.To(corev1.NodeInclusionPolicyHonor), MatchLabelKeys: []string{"rev"}},
		corev1.TopologySpreadConstraint{MaxSkew: 2, TopologyKey: "zone", WhenUnsatisfiable: "ScheduleAnyway"},
	), nil},
	{"skew, key, action", spread(corev1.TopologySpreadConstraint{WhenUnsatisfiable: "Sometimes"}), []string{
		"Invalid value spec.topologySpreadConstraints[0].maxSkew: must be greater than zero",
		"Required value spec.topologySpreadConstraints[0].topologyKey: can not be empty",
		`Unsupported value spec.topologySpreadConstraints[0].whenUnsatisfiable: supported values: "DoNotSchedule", "ScheduleAnyway"`,
	}},
	{"duplicate pair", spread(
		corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule"},
		corev1.TopologySpreadConstraint{MaxSkew: 2, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule"},
	), []string{"Duplicate value spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: "}},
	{"minDomains", spread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "ScheduleAnyway", MinDomains: ptr.To(int32(0))}), []string{
		"Invalid value spec.topologySpreadConstraints[0].minDomains: must be greater than zero",
		"Invalid value spec.topologySpreadConstraints[0].minDomains: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
	}},
	{"inclusion policies", spread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule",
		NodeAffinityPolicy: ptr.To(corev1.NodeInclusionPolicy("Maybe")), NodeTaintsPolicy: ptr.To(corev1.NodeInclusionPolicy(""))}), []string{
		`Unsupported value spec.topologySpreadConstraints[0].nodeAffinityPolicy: supported values: "Honor", "Ignore"`,
		`Unsupported value spec.topologySpreadConstraints[0].nodeTaintsPolicy: supported values: "Honor", "Ignore"`,
	}},
	{"matchLabelKeys", spread(
		corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "a", WhenUnsatisfiable: "DoNotSchedule", MatchLabelKeys: []string{"rev"}},
		corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "b", WhenUnsatisfiable: "DoNotSchedule", LabelSelector: appSelector(), MatchLabelKeys: []string{"app", "-bad"}},
	), []string{
		"Forbidden spec.topologySpreadConstraints[0].matchLabelKeys: must not be specified when labelSelector is not set",
		"Invalid value spec.topologySpreadConstraints[1].matchLabelKeys[0]: exists in both matchLabelKeys and labelSelector",
		"Invalid value spec.topologySpreadConstraints[1].matchLabelKeys[1]: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
	}},
	{"label selector", spread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "a", WhenUnsatisfiable: "DoNotSchedule",
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Exists", Values: []string{"x"}}}}}), []string{
		"Forbidden spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
	}},
}

func TestPodSpreadValidation(t *testing.T) { runPodCases(t, spreadCases) }

package registry

import (
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// nodeStrategy holds Nodes to kube-apiserver's rules. A node's pod CIDRs
// and provider ID, once set, stay: pods and routes were laid out by them.
type nodeStrategy struct{}

// KeepsStatusOnCreate: kube lets a kubelet register its node with its
// status in the create.
func (nodeStrategy) KeepsStatusOnCreate() {}

func (nodeStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	var node corev1.Node
	if errs := toTyped(obj, &node); len(errs) > 0 {
		return errs
	}
	defaultNode(&node)
	admitNode(&node)
	// Dynamic kubelet config is gone; kube drops it on create, and
	// keeps it on update only where it was already set, so the
	// deprecated field is read here on purpose.
	//lint:ignore SA1019 see above
	node.Spec.ConfigSource = nil
	node.Status.Config = nil
	if errs := nodeErrors(&node); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &node)
}

func (nodeStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	var node, prev corev1.Node
	if errs := append(toTyped(obj, &node), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	defaultNode(&node)
	node.Status = prev.Status
	//lint:ignore SA1019 kube keeps a config source only where one was set
	if prev.Spec.ConfigSource == nil {
		//lint:ignore SA1019 as above
		node.Spec.ConfigSource = nil
	}
	errs := nodeUpdateErrors(&node, &prev)
	if len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &node)
}

// PrepareForStatusUpdate keeps the spec, as kube's nodeStatusStrategy.
func (nodeStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	var node, prev corev1.Node
	if errs := append(toTyped(obj, &node), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	defaultNode(&node)
	if prev.Status.Config == nil {
		node.Status.Config = nil
	}
	if errs := nodeUpdateErrors(&node, &prev); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &node)
}

// FieldValues gives spec.unschedulable as kube selects it: "false" when
// the field is absent.
func (nodeStrategy) FieldValues(obj map[string]any) fields.Set {
	v, _ := Lookup(obj, "spec.unschedulable")
	b, _ := v.(bool)
	return fields.Set{"spec.unschedulable": strconv.FormatBool(b)}
}

// defaultNode is SetDefaults_NodeStatus: a node that reports capacity
// and no allocatable can give pods all of it.
func defaultNode(node *corev1.Node) {
	syncPodCIDRs(&node.Spec)
	if node.Status.Allocatable == nil && node.Status.Capacity != nil {
		node.Status.Allocatable = node.Status.Capacity.DeepCopy()
	}
}

// admitNode is kube-apiserver's TaintNodesByCondition admission on a
// node's create: a new node is tainted not-ready for scheduling until
// the node lifecycle controller sees it Ready and lifts the taint, so
// no pod lands on a node that has not yet reported.
func admitNode(node *corev1.Node) {
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule {
			return
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
}

// nodeErrors is kube's ValidateNode less the metadata.
func nodeErrors(node *corev1.Node) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, taintErrors(node.Spec.Taints, field.NewPath("metadata", "taints"))...)
	errs = append(errs, nodeResourceErrors(node)...)
	if cidrs := node.Spec.PodCIDRs; len(cidrs) > 0 {
		p := field.NewPath("spec", "podCIDRs")
		for i, c := range cidrs {
			errs = append(errs, validation.IsValidCIDRForLegacyField(p.Index(i), c, false, nil)...)
		}
		cidrIP := func(s string) net.IP { ip, _, _ := net.ParseCIDR(s); return ip }
		if len(cidrs) > 1 && !oneOfEachFamily(cidrs, cidrIP) {
			errs = append(errs, field.Invalid(p, cidrs, "may specify no more than one CIDR for each IP family"))
		}
	}
	return errs
}

func nodeResourceErrors(node *corev1.Node) field.ErrorList {
	var errs field.ErrorList
	for _, part := range []struct {
		name string
		list corev1.ResourceList
	}{{"capacity", node.Status.Capacity}, {"allocatable", node.Status.Allocatable}} {
		for _, k := range sets.List(sets.KeySet(part.list)) {
			q := part.list[k]
			p := field.NewPath("status", part.name, string(k))
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(p, q.String(), "must be greater than or equal to 0"))
			}
			if extendedResource(k) && q.MilliValue()%1000 != 0 {
				errs = append(errs, field.Invalid(p, q.String(), "must be an integer"))
			}
		}
	}
	return errs
}

// nodeUpdateErrors is kube's ValidateNodeUpdate less the metadata.
func nodeUpdateErrors(node, old *corev1.Node) field.ErrorList {
	errs := nodeResourceErrors(node)
	seen := map[corev1.NodeAddress]bool{}
	for i, a := range node.Status.Addresses {
		if seen[a] {
			errs = append(errs, field.Duplicate(field.NewPath("status", "addresses").Index(i), a))
		}
		seen[a] = true
	}
	if len(old.Spec.PodCIDRs) > 0 {
		changed := len(old.Spec.PodCIDRs) != len(node.Spec.PodCIDRs)
		for i := 0; !changed && i < len(old.Spec.PodCIDRs); i++ {
			changed = old.Spec.PodCIDRs[i] != node.Spec.PodCIDRs[i]
		}
		if changed {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "podCIDRs"), "node updates may not change podCIDR except from \"\" to valid"))
		}
	}
	if old.Spec.ProviderID != "" && old.Spec.ProviderID != node.Spec.ProviderID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "providerID"), "node updates may not change providerID except from \"\" to valid"))
	}
	errs = append(errs, taintErrors(node.Spec.Taints, field.NewPath("metadata", "taints"))...)
	if node.Spec.DoNotUseExternalID != old.Spec.DoNotUseExternalID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "externalID"), "may not be updated"))
	}
	return errs
}

// taintErrors is kube's validateNodeTaints; kube reports them under
// metadata.taints, and so does this.
func taintErrors(taints []corev1.Taint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.TaintEffect]sets.Set[string]{}
	for i, t := range taints {
		p := path.Index(i)
		errs = append(errs, metavalidation.ValidateLabelName(t.Key, p.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		if t.Effect == "" {
			errs = append(errs, field.Required(p.Child("effect"), ""))
		} else {
			errs = append(errs, taintEffectErrors(t.Effect, p.Child("effect"))...)
		}
		if seen[t.Effect].Has(t.Key) {
			dup := field.Duplicate(p, t)
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = sets.New[string]()
		}
		seen[t.Effect].Insert(t.Key)
	}
	return errs
}

// nodeColumns are kube's node table columns after Name.
func nodeColumns() []Column {
	info := func(f func(corev1.NodeSystemInfo) string) func(map[string]any) any {
		return func(obj map[string]any) any {
			var n corev1.Node
			_ = toTyped(obj, &n)
			if v := f(n.Status.NodeInfo); v != "" {
				return v
			}
			return "<unknown>"
		}
	}
	address := func(t corev1.NodeAddressType) func(map[string]any) any {
		return func(obj map[string]any) any {
			var n corev1.Node
			_ = toTyped(obj, &n)
			for _, a := range n.Status.Addresses {
				if a.Type == t {
					return a.Address
				}
			}
			return "<none>"
		}
	}
	return []Column{
		{Name: "Status", Type: "string", Description: "The status of the node", Value: nodeStatusCell},
		{Name: "Roles", Type: "string", Description: "The roles of the node", Value: nodeRolesCell},
		{Name: "Age", Type: "string", Path: ".metadata.creationTimestamp", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		{Name: "Version", Type: "string", Description: corev1.NodeSystemInfo{}.SwaggerDoc()["kubeletVersion"],
			Value: func(obj map[string]any) any {
				var n corev1.Node
				_ = toTyped(obj, &n)
				return n.Status.NodeInfo.KubeletVersion
			}},
		{Name: "Internal-IP", Type: "string", Priority: 1, Description: corev1.NodeStatus{}.SwaggerDoc()["addresses"], Value: address(corev1.NodeInternalIP)},
		{Name: "External-IP", Type: "string", Priority: 1, Description: corev1.NodeStatus{}.SwaggerDoc()["addresses"], Value: address(corev1.NodeExternalIP)},
		{Name: "OS-Image", Type: "string", Priority: 1, Description: corev1.NodeSystemInfo{}.SwaggerDoc()["osImage"],
			Value: info(func(i corev1.NodeSystemInfo) string { return i.OSImage })},
		{Name: "Kernel-Version", Type: "string", Priority: 1, Description: corev1.NodeSystemInfo{}.SwaggerDoc()["kernelVersion"],
			Value: info(func(i corev1.NodeSystemInfo) string { return i.KernelVersion })},
		{Name: "Container-Runtime", Type: "string", Priority: 1, Description: corev1.NodeSystemInfo{}.SwaggerDoc()["containerRuntimeVersion"],
			Value: info(func(i corev1.NodeSystemInfo) string { return i.ContainerRuntimeVersion })},
	}
}

// nodeStatusCell is Ready, NotReady or Unknown from the Ready
// condition, with SchedulingDisabled for a cordoned node.
func nodeStatusCell(obj map[string]any) any {
	var n corev1.Node
	_ = toTyped(obj, &n)
	status := "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			status = "NotReady"
			if c.Status == corev1.ConditionTrue {
				status = "Ready"
			}
		}
	}
	if n.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	return status
}

// nodeRolesCell lists the roles of node-role.kubernetes.io/<role>
// labels and of a kubernetes.io/role label, sorted.
func nodeRolesCell(obj map[string]any) any {
	labels, _ := nestedMap(obj, false, "metadata")["labels"].(map[string]any)
	roles := sets.New[string]()
	for k, v := range labels {
		switch role, ok := strings.CutPrefix(k, "node-role.kubernetes.io/"); {
		case ok && role != "":
			roles.Insert(role)
		case k == "kubernetes.io/role" && str(v) != "":
			roles.Insert(str(v))
		}
	}
	if roles.Len() == 0 {
		return "<none>"
	}
	list := roles.UnsortedList()
	sort.Strings(list)
	return strings.Join(list, ",")
}

package registry

import (
	"fmt"
	"strings"

	appsv1beta1 "k8s.io/api/apps/v1beta1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The apps kinds' table columns, as kube's printers define them: the
// types and descriptions are kube's, which describe most columns with
// the older extensions/v1beta1 types' documentation.

const (
	containersDoc = "Names of each container in the template."
	imagesDoc     = "Images referenced by each container in the template."
	podsReadyDoc  = "Number of the pod with ready state"
)

// ageColumn is the Age column placed by hand, for kinds whose wide
// columns come after it.
var ageColumn = Column{Name: "Age", Type: "string", Path: ".metadata.creationTimestamp",
	Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]}

func deploymentColumns() []Column {
	return []Column{
		{Name: "Ready", Type: "string", Description: podsReadyDoc, Value: readyOfDesired},
		{Name: "Up-to-date", Type: "string", Description: extensionsv1beta1.DeploymentStatus{}.SwaggerDoc()["updatedReplicas"],
			Value: countAt("status", "updatedReplicas")},
		{Name: "Available", Type: "string", Description: extensionsv1beta1.DeploymentStatus{}.SwaggerDoc()["availableReplicas"],
			Value: countAt("status", "availableReplicas")},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: containersDoc, Value: templateContainers(containerName)},
		{Name: "Images", Type: "string", Priority: 1, Description: imagesDoc, Value: templateContainers(containerImage)},
		// A Deployment's selector prints bare: "" where the others
		// print <none>.
		{Name: "Selector", Type: "string", Priority: 1, Description: extensionsv1beta1.DeploymentSpec{}.SwaggerDoc()["selector"],
			Value: func(obj map[string]any) any { return selectorString(obj, "") }},
	}
}

func replicaSetColumns() []Column {
	return []Column{
		{Name: "Desired", Type: "integer", Description: extensionsv1beta1.ReplicaSetSpec{}.SwaggerDoc()["replicas"],
			Value: countAt("spec", "replicas")},
		{Name: "Current", Type: "integer", Description: extensionsv1beta1.ReplicaSetStatus{}.SwaggerDoc()["replicas"],
			Value: countAt("status", "replicas")},
		{Name: "Ready", Type: "integer", Description: extensionsv1beta1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"],
			Value: countAt("status", "readyReplicas")},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: containersDoc, Value: templateContainers(containerName)},
		{Name: "Images", Type: "string", Priority: 1, Description: imagesDoc, Value: templateContainers(containerImage)},
		{Name: "Selector", Type: "string", Priority: 1, Description: extensionsv1beta1.ReplicaSetSpec{}.SwaggerDoc()["selector"],
			Value: func(obj map[string]any) any { return selectorString(obj, "<none>") }},
	}
}

func statefulSetColumns() []Column {
	return []Column{
		{Name: "Ready", Type: "string", Description: podsReadyDoc, Value: readyOfDesired},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: containersDoc, Value: templateContainers(containerName)},
		{Name: "Images", Type: "string", Priority: 1, Description: imagesDoc, Value: templateContainers(containerImage)},
	}
}

func daemonSetColumns() []Column {
	status := extensionsv1beta1.DaemonSetStatus{}.SwaggerDoc()
	return []Column{
		{Name: "Desired", Type: "integer", Description: status["desiredNumberScheduled"], Value: countAt("status", "desiredNumberScheduled")},
		{Name: "Current", Type: "integer", Description: status["currentNumberScheduled"], Value: countAt("status", "currentNumberScheduled")},
		{Name: "Ready", Type: "integer", Description: status["numberReady"], Value: countAt("status", "numberReady")},
		{Name: "Up-to-date", Type: "integer", Description: status["updatedNumberScheduled"], Value: countAt("status", "updatedNumberScheduled")},
		{Name: "Available", Type: "integer", Description: status["numberAvailable"], Value: countAt("status", "numberAvailable")},
		{Name: "Node Selector", Type: "string", Description: corev1.PodSpec{}.SwaggerDoc()["nodeSelector"], Value: daemonSetNodeSelector},
		// kube prints Age after the node selector.
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: containersDoc, Value: templateContainers(containerName)},
		{Name: "Images", Type: "string", Priority: 1, Description: imagesDoc, Value: templateContainers(containerImage)},
		{Name: "Selector", Type: "string", Priority: 1, Description: extensionsv1beta1.DaemonSetSpec{}.SwaggerDoc()["selector"],
			Value: func(obj map[string]any) any { return selectorString(obj, "<none>") }},
	}
}

func controllerRevisionColumns() []Column {
	return []Column{
		{Name: "Controller", Type: "string", Description: "Controller of the object", Value: revisionController},
		{Name: "Revision", Type: "string", Description: appsv1beta1.ControllerRevision{}.SwaggerDoc()["revision"],
			Value: func(obj map[string]any) any { return int64At(obj, "revision") }},
		ageColumn,
	}
}

// int64At reads an integer field; absent is 0, as kube's printers read
// a Go zero value.
func int64At(obj map[string]any, path ...string) int64 {
	m := nestedMap(obj, false, path[:len(path)-1]...)
	switch n := m[path[len(path)-1]].(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

func countAt(path ...string) func(map[string]any) any {
	return func(obj map[string]any) any { return int64At(obj, path...) }
}

// readyOfDesired is "ready/desired", the READY cell of Deployments and
// StatefulSets.
func readyOfDesired(obj map[string]any) any {
	return fmt.Sprintf("%d/%d", int64At(obj, "status", "readyReplicas"), int64At(obj, "spec", "replicas"))
}

func containerName(c map[string]any) string  { return str(c["name"]) }
func containerImage(c map[string]any) string { return str(c["image"]) }

// templateContainers joins one field of each container of the pod
// template with commas; the template's pod spec is at path, or at
// spec.template.spec.
func templateContainers(f func(map[string]any) string, path ...string) func(map[string]any) any {
	if len(path) == 0 {
		path = []string{"spec", "template", "spec"}
	}
	return func(obj map[string]any) any {
		cs, _ := nestedMap(obj, false, path...)["containers"].([]any)
		parts := make([]string, 0, len(cs))
		for _, c := range cs {
			m, _ := c.(map[string]any)
			parts = append(parts, f(m))
		}
		return strings.Join(parts, ",")
	}
}

// selectorString prints spec.selector in label selector syntax, or
// empty when the selector selects nothing or everything.
func selectorString(obj map[string]any, empty string) string {
	sel, err := specSelector(obj)
	if err != nil {
		return "<error>"
	}
	if s := sel.String(); s != "" {
		return s
	}
	return empty
}

// specSelector is spec.selector as a labels.Selector; a missing one
// selects nothing.
func specSelector(obj map[string]any) (labels.Selector, error) {
	ls, err := fromField[metav1.LabelSelector](nestedMap(obj, false, "spec"), "selector")
	if err != nil {
		return nil, err
	}
	if _, ok := nestedMap(obj, false, "spec")["selector"]; !ok {
		return labels.Nothing(), nil
	}
	return metav1.LabelSelectorAsSelector(ls)
}

func daemonSetNodeSelector(obj map[string]any) any {
	m := nestedMap(obj, false, "spec", "template", "spec", "nodeSelector")
	set := labels.Set{}
	for k, v := range m {
		set[k] = str(v)
	}
	return labels.FormatLabels(set)
}

// revisionController names the controller owner of a revision as
// kind.group/name, lower case, or <none>.
func revisionController(obj map[string]any) any {
	refs, _ := nestedMap(obj, false, "metadata")["ownerReferences"].([]any)
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		if c, _ := ref["controller"].(bool); !c {
			continue
		}
		gv, err := schema.ParseGroupVersion(str(ref["apiVersion"]))
		if err != nil {
			return "<error>"
		}
		gk := gv.WithKind(str(ref["kind"])).GroupKind()
		if gk.Empty() {
			return str(ref["name"])
		}
		return strings.ToLower(gk.String()) + "/" + str(ref["name"])
	}
	return "<none>"
}

package e2e_test

import (
	"slices"
	"strings"
	"testing"
)

// Descriptions in the Widget schema that kubectl explain must show.
const (
	widgetSpecDescription     = "WidgetSpec is the desired state of a Widget."
	widgetReplicasDescription = "Replicas is how many copies of the widget run."
	widgetModeDescription     = "Mode selects how the widget works."
	widgetCELMessage          = "more than 5 replicas need mode b"
)

// widgetCRD is the Widget CRD in group GROUP: a structural schema with
// bounds, an enum, a pattern, a set, a default and a CEL rule; status and
// scale subresources; printer columns, one of priority 1; a selectable
// field; v1 stored and v1beta1 served, without conversion.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.GROUP
spec:
  group: GROUP
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    listKind: WidgetList
  conversion:
    strategy: None
  versions:
  - name: v1
    served: true
    storage: true
VERSION
  - name: v1beta1
    served: true
    storage: false
VERSION
`

// widgetVersion is the part of a version both versions share.
const widgetVersion = `    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is the kubectl e2e suite's custom resource.
        properties:
          spec:
            type: object
            description: ` + widgetSpecDescription + `
            x-kubernetes-validations:
            - rule: "self.replicas <= 5 || (has(self.mode) && self.mode == 'b')"
              message: ` + widgetCELMessage + `
            properties:
              replicas:
                type: integer
                description: ` + widgetReplicasDescription + `
                minimum: 0
                maximum: 10
                default: 1
              mode:
                type: string
                description: ` + widgetModeDescription + `
                enum: [a, b]
              name:
                type: string
                description: Name is the widget's display name.
                pattern: '^[a-z][a-z0-9-]*$'
              tags:
                type: array
                description: Tags are distinct words about the widget.
                x-kubernetes-list-type: set
                items:
                  type: string
          status:
            type: object
            properties:
              replicas:
                type: integer
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [type, status]
                  properties:
                    type: {type: string}
                    status: {type: string}
                    reason: {type: string}
                    message: {type: string}
                    lastTransitionTime: {type: string, format: date-time}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Mode
      type: string
      jsonPath: .spec.mode
    - name: Alias
      type: string
      jsonPath: .spec.name
      priority: 1
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    selectableFields:
    - jsonPath: .spec.mode`

func (e *fullEnv) crdManifest() string {
	return strings.ReplaceAll(strings.ReplaceAll(widgetCRD, "VERSION", widgetVersion), "GROUP", e.group)
}

// fullCRD is step 1: kubectl apply -f of the CRD, kubectl wait for it to
// be established, and the stored CRD keeps what the manifest said.
func fullCRD(t *testing.T, e *fullEnv) {
	crd := "widgets." + e.group
	if r := e.apply(t, e.crdManifest()); r.err != nil {
		t.Errorf("kubectl apply -f of the CRD failed: %v", r)
		e.seed(t, e.crdManifest()) // the later steps need it
	} else if want := "customresourcedefinition.apiextensions.k8s.io/" + crd + " created\n"; r.stdout != want {
		t.Errorf("kubectl apply -f crd: %q, want %q", r.stdout, want)
	}
	r := e.runEnv(t, nil, longTimeout, "wait", "--for=condition=established", "crd/"+crd, "--timeout=100s")
	if r.err != nil {
		t.Fatal(r)
	}
	if want := "customresourcedefinition.apiextensions.k8s.io/" + crd + " condition met\n"; r.stdout != want {
		t.Errorf("kubectl wait: %q, want %q", r.stdout, want)
	}

	obj := e.k.getJSON(t, "crd", crd)
	if got := str(obj, "spec.conversion.strategy"); got != "None" {
		t.Errorf("spec.conversion.strategy %q, want None", got)
	}
	versions, _ := field(obj, "spec.versions").([]any)
	var got []string
	for _, v := range versions {
		m, _ := v.(map[string]any)
		got = append(got, str(m, "name")+":"+mustJSON(m["served"])+":"+mustJSON(m["storage"]))
		for _, path := range []string{"subresources.status", "subresources.scale.specReplicasPath", "selectableFields", "schema.openAPIV3Schema.properties.spec.x-kubernetes-validations", "schema.openAPIV3Schema.properties.spec.properties.replicas.default"} {
			if field(m, path) == nil {
				t.Errorf("stored version %s lacks %s", str(m, "name"), path)
			}
		}
	}
	slices.Sort(got)
	if want := []string{"v1:true:true", "v1beta1:true:false"}; !slices.Equal(got, want) {
		t.Errorf("versions name:served:storage %q, want %q", got, want)
	}

	if got, want := names(e.k.ok(t, "api-resources", "--api-group="+e.group, "-o", "name")), []string{crd}; !slices.Equal(got, want) {
		t.Errorf("api-resources --api-group=%s: %q, want %q", e.group, got, want)
	}
	for _, v := range []string{"v1", "v1beta1"} {
		out := e.k.ok(t, "get", "--raw", "/apis/"+e.group+"/"+v)
		wantContains(t, "GET /apis/"+e.group+"/"+v, out, `"name":"widgets"`, `"name":"widgets/status"`, `"name":"widgets/scale"`)
	}
}

// fullExplain is step 2: kubectl explain shows the schema's descriptions.
func fullExplain(t *testing.T, e *fullEnv) {
	apiVersion := "--api-version=" + e.group + "/v1"
	out := e.k.ok(t, "explain", "widgets.spec", apiVersion)
	wantContains(t, "kubectl explain widgets.spec", out,
		"KIND:", "Widget", "spec", widgetSpecDescription, "FIELDS:",
		"replicas", "<integer>", widgetReplicasDescription,
		"mode", widgetModeDescription, "tags", "<[]string>")

	out = e.k.ok(t, "explain", "widgets.spec.replicas", apiVersion)
	wantContains(t, "kubectl explain widgets.spec.replicas", out, "replicas", "<integer>", widgetReplicasDescription)
	if strings.Contains(out, widgetModeDescription) {
		t.Errorf("kubectl explain widgets.spec.replicas shows the mode field too:\n%s", out)
	}

	out = e.k.ok(t, "explain", "widgets", apiVersion)
	wantContains(t, "kubectl explain widgets", out, "A Widget is the kubectl e2e suite's custom resource.", "spec", "status")

	// the field's own description, as kube publishes it beside ObjectMeta's
	out = e.k.ok(t, "explain", "widgets.metadata", apiVersion)
	wantContains(t, "kubectl explain widgets.metadata", out, "Standard object's metadata.", "ObjectMeta is metadata")
}

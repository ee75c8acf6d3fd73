package registry

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// appsObject decodes a JSON apps/v1 object of the resource as a
// request body is decoded, so numbers are int64 as the store has them.
func appsObject(t *testing.T, plural, body string) map[string]any {
	t.Helper()
	obj, _, err := builtin("apps", plural).Decode([]byte(body), FieldStrict)
	if err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return obj
}

// created runs the kind's create rules on body and fails the test on
// errors: the stored object an update starts from.
func created(t *testing.T, plural, body string) map[string]any {
	t.Helper()
	obj := appsObject(t, plural, body)
	if errs := builtin("apps", plural).Strategy.PrepareForCreate(time.Time{}, obj); len(errs) > 0 {
		t.Fatalf("creating %s: %v", plural, errs.ToAggregate())
	}
	return obj
}

// workload is a minimal valid workload of the kind: the selector and
// template labels app=web, one container; extra is more of the spec.
func workload(kind, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"apiVersion":"apps/v1","kind":"` + kind + `","metadata":{"name":"web","namespace":"d"},` +
		`"spec":{"selector":{"matchLabels":{"app":"web"}},` +
		`"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}` + extra + `}}`
}

var appsPlural = map[string]string{"Deployment": "deployments", "ReplicaSet": "replicasets", "StatefulSet": "statefulsets", "DaemonSet": "daemonsets"}

// TestAppsDefaults holds each workload to kube's apps/v1 defaults, the
// pod template's included, and to an empty status on create.
func TestAppsDefaults(t *testing.T) {
	tests := []struct {
		kind, extra, path string
		want              any
	}{
		{"Deployment", "", "spec.replicas", int64(1)},
		{"Deployment", "", "spec.strategy.type", "RollingUpdate"},
		{"Deployment", "", "spec.strategy.rollingUpdate.maxSurge", "25%"},
		{"Deployment", "", "spec.strategy.rollingUpdate.maxUnavailable", "25%"},
		{"Deployment", "", "spec.revisionHistoryLimit", int64(10)},
		{"Deployment", "", "spec.progressDeadlineSeconds", int64(600)},
		{"Deployment", `"replicas":0`, "spec.replicas", int64(0)},
		{"Deployment", `"strategy":{"type":"Recreate"}`, "spec.strategy.rollingUpdate", nil},
		{"Deployment", `"strategy":{"rollingUpdate":{"maxSurge":2}}`, "spec.strategy.rollingUpdate.maxSurge", int64(2)},
		{"Deployment", `"strategy":{"rollingUpdate":{"maxSurge":2}}`, "spec.strategy.rollingUpdate.maxUnavailable", "25%"},
		// The template gets a Pod's spec defaults, not its admission.
		{"Deployment", "", "spec.template.spec.restartPolicy", "Always"},
		{"Deployment", "", "spec.template.spec.dnsPolicy", "ClusterFirst"},
		{"Deployment", "", "spec.template.spec.schedulerName", "default-scheduler"},
		{"Deployment", "", "spec.template.spec.terminationGracePeriodSeconds", int64(30)},
		{"Deployment", "", "spec.template.spec.containers[0].imagePullPolicy", "Always"},
		{"Deployment", "", "spec.template.spec.containers[0].terminationMessagePolicy", "File"},
		{"Deployment", "", "spec.template.spec.serviceAccountName", nil},
		{"Deployment", "", "spec.template.spec.priority", nil},
		{"Deployment", "", "status", map[string]any{}},
		{"ReplicaSet", "", "spec.replicas", int64(1)},
		{"ReplicaSet", "", "spec.template.spec.containers[0].terminationMessagePath", "/dev/termination-log"},
		{"ReplicaSet", "", "status", map[string]any{"replicas": int64(0)}},
		{"StatefulSet", "", "spec.replicas", int64(1)},
		{"StatefulSet", "", "spec.podManagementPolicy", "OrderedReady"},
		{"StatefulSet", "", "spec.updateStrategy.type", "RollingUpdate"},
		{"StatefulSet", "", "spec.updateStrategy.rollingUpdate.partition", int64(0)},
		{"StatefulSet", "", "spec.persistentVolumeClaimRetentionPolicy.whenDeleted", "Retain"},
		{"StatefulSet", "", "spec.persistentVolumeClaimRetentionPolicy.whenScaled", "Retain"},
		{"StatefulSet", "", "spec.revisionHistoryLimit", int64(10)},
		{"StatefulSet", `"updateStrategy":{"type":"OnDelete"}`, "spec.updateStrategy.rollingUpdate", nil},
		// maxUnavailable is behind a gate v1.33 leaves off.
		{"StatefulSet", `"updateStrategy":{"rollingUpdate":{"maxUnavailable":2}}`, "spec.updateStrategy.rollingUpdate.maxUnavailable", nil},
		{"StatefulSet", `"volumeClaimTemplates":[{"metadata":{"name":"data"}}]`, "spec.volumeClaimTemplates[0].kind", "PersistentVolumeClaim"},
		{"StatefulSet", `"volumeClaimTemplates":[{"metadata":{"name":"data"}}]`, "spec.volumeClaimTemplates[0].spec.volumeMode", "Filesystem"},
		{"StatefulSet", `"volumeClaimTemplates":[{"metadata":{"name":"data"}}]`, "spec.volumeClaimTemplates[0].status.phase", "Pending"},
		{"StatefulSet", "", "status", map[string]any{"replicas": int64(0), "availableReplicas": int64(0)}},
		{"DaemonSet", "", "spec.updateStrategy.type", "RollingUpdate"},
		{"DaemonSet", "", "spec.updateStrategy.rollingUpdate.maxUnavailable", int64(1)},
		{"DaemonSet", "", "spec.updateStrategy.rollingUpdate.maxSurge", int64(0)},
		{"DaemonSet", "", "spec.revisionHistoryLimit", int64(10)},
		{"DaemonSet", `"updateStrategy":{"type":"OnDelete"}`, "spec.updateStrategy.rollingUpdate", nil},
	}
	for _, tt := range tests {
		t.Run(tt.kind+" "+tt.path+" "+tt.extra, func(t *testing.T) {
			obj := created(t, appsPlural[tt.kind], workload(tt.kind, tt.extra))
			got, _ := Lookup(obj, tt.path)
			if !equalJSON(got, tt.want) {
				t.Errorf("%s = %#v, want %#v", tt.path, got, tt.want)
			}
		})
	}
}

// equalJSON compares decoded JSON values, an empty map as itself.
func equalJSON(a, b any) bool {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		if len(am) != len(bm) {
			return false
		}
		for k, v := range am {
			if !equalJSON(v, bm[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// TestAppsValidation holds new workloads to kube's rules, each error
// with kube's path and words (as the oracle answers them).
func TestAppsValidation(t *testing.T) {
	mismatch := `"template":{"metadata":{"labels":{"app":"other"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	tests := []struct {
		name, kind, body string
		want             string // "" when valid; else a substring of the errors
	}{
		{"valid deployment", "Deployment", workload("Deployment", ""), ""},
		{"selector mismatch", "Deployment", workload("Deployment", "")[:0] + strings.Replace(workload("Deployment", ""), `"labels":{"app":"web"}`, `"labels":{"app":"other"}`, 1),
			"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`"},
		{"no selector", "Deployment", `{"metadata":{"name":"web"},"spec":{` + mismatch + `}}`, "spec.selector: Required value"},
		{"empty selector", "Deployment", `{"metadata":{"name":"web"},"spec":{"selector":{},` + mismatch + `}}`,
			"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"},
		{"negative replicas", "Deployment", workload("Deployment", `"replicas":-1`), "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		{"restart policy", "Deployment", strings.Replace(workload("Deployment", ""), `"containers"`, `"restartPolicy":"Never","containers"`, 1),
			`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		{"deadline", "Deployment", strings.Replace(workload("Deployment", ""), `"containers"`, `"activeDeadlineSeconds":5,"containers"`, 1),
			"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"},
		{"pod spec", "Deployment", strings.Replace(workload("Deployment", ""), `"image":"nginx"`, `"image":""`, 1), "spec.template.spec.containers[0].image: Required value"},
		{"both zero", "Deployment", workload("Deployment", `"strategy":{"rollingUpdate":{"maxSurge":0,"maxUnavailable":0}}`),
			"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}: may not be 0 when `maxSurge` is 0"},
		{"over 100%", "Deployment", workload("Deployment", `"strategy":{"rollingUpdate":{"maxUnavailable":"120%"}}`),
			"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"120%\"}: must not be greater than 100%"},
		{"surge over 100%", "Deployment", workload("Deployment", `"strategy":{"rollingUpdate":{"maxSurge":"150%"}}`), ""},
		{"bad percent", "Deployment", workload("Deployment", `"strategy":{"rollingUpdate":{"maxSurge":"x%"}}`), "spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"x%\"}: a valid percent string must be"},
		{"recreate with rolling", "Deployment", workload("Deployment", `"strategy":{"type":"Recreate","rollingUpdate":{}}`),
			"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"},
		{"unknown strategy", "Deployment", workload("Deployment", `"strategy":{"type":"Foo"}`), `spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"Foo", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"`},
		{"deadline under minReady", "Deployment", workload("Deployment", `"minReadySeconds":10,"progressDeadlineSeconds":10`), "spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"},
		{"valid replicaset", "ReplicaSet", workload("ReplicaSet", ""), ""},
		{"replicaset empty selector", "ReplicaSet", `{"metadata":{"name":"web"},"spec":{"selector":{},` + mismatch + `}}`, "empty selector is invalid for deployment"},
		{"replicaset restart", "ReplicaSet", strings.Replace(workload("ReplicaSet", ""), `"containers"`, `"restartPolicy":"OnFailure","containers"`, 1), `spec.template.spec.restartPolicy: Unsupported value: "OnFailure"`},
		{"valid statefulset", "StatefulSet", workload("StatefulSet", `"serviceName":"web"`), ""},
		{"statefulset service", "StatefulSet", workload("StatefulSet", `"serviceName":"Web_1"`), `spec.serviceName: Invalid value: "Web_1": a lowercase RFC 1123 label`},
		{"statefulset policy", "StatefulSet", workload("StatefulSet", `"podManagementPolicy":"Foo"`), `spec.podManagementPolicy: Invalid value: "Foo": must be 'OrderedReady' or 'Parallel'`},
		{"statefulset on delete", "StatefulSet", workload("StatefulSet", `"updateStrategy":{"type":"OnDelete","rollingUpdate":{"partition":2}}`),
			"spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:2, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'"},
		{"statefulset partition", "StatefulSet", workload("StatefulSet", `"updateStrategy":{"rollingUpdate":{"partition":-1}}`), "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1"},
		{"statefulset retention", "StatefulSet", workload("StatefulSet", `"persistentVolumeClaimRetentionPolicy":{"whenScaled":"Keep"}`),
			`spec.persistentVolumeClaimRetentionPolicy.whenScaled: Unsupported value: "Keep": supported values: "Retain", "Delete"`},
		{"statefulset ordinals", "StatefulSet", workload("StatefulSet", `"ordinals":{"start":-1}`), "spec.ordinals.start: Invalid value: -1"},
		{"statefulset empty selector", "StatefulSet", `{"metadata":{"name":"web"},"spec":{"selector":{},` + mismatch + `}}`, "empty selector is invalid for statefulset"},
		// kube leaves a StatefulSet's pod spec to the pods.
		{"statefulset pod spec", "StatefulSet", strings.Replace(workload("StatefulSet", ""), `"image":"nginx"`, `"image":""`, 1), ""},
		{"statefulset deadline", "StatefulSet", strings.Replace(workload("StatefulSet", ""), `"containers"`, `"activeDeadlineSeconds":5,"containers"`, 1), "activeDeadlineSeconds in StatefulSet is not Supported"},
		{"valid daemonset", "DaemonSet", workload("DaemonSet", ""), ""},
		{"daemonset no selector", "DaemonSet", `{"metadata":{"name":"web"},"spec":{` + mismatch + `}}`, "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`"},
		{"daemonset surge and unavailable", "DaemonSet", workload("DaemonSet", `"updateStrategy":{"rollingUpdate":{"maxSurge":1}}`),
			"spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:\"\"}: may not be set when maxUnavailable is non-zero"},
		{"daemonset neither", "DaemonSet", workload("DaemonSet", `"updateStrategy":{"rollingUpdate":{"maxUnavailable":0}}`),
			"spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"},
		{"daemonset surge over 100%", "DaemonSet", workload("DaemonSet", `"updateStrategy":{"rollingUpdate":{"maxUnavailable":0,"maxSurge":"101%"}}`), "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"101%\"}: must not be greater than 100%"},
		{"daemonset surge only", "DaemonSet", workload("DaemonSet", `"updateStrategy":{"rollingUpdate":{"maxUnavailable":0,"maxSurge":"10%"}}`), ""},
		{"daemonset unknown strategy", "DaemonSet", workload("DaemonSet", `"updateStrategy":{"type":"Foo"}`), `spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Foo", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plural := appsPlural[tt.kind]
			obj := appsObject(t, plural, tt.body)
			got := builtin("apps", plural).Strategy.PrepareForCreate(time.Time{}, obj).ToAggregate()
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("errors %v, want none", got)
			case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
				t.Errorf("errors %v, want %q", got, tt.want)
			}
		})
	}
}

// TestAppsUpdate holds updates to kube's rules: fixed selectors, a
// StatefulSet's fixed spec, a DaemonSet's template generation.
func TestAppsUpdate(t *testing.T) {
	relabel := func(kind string) string {
		return strings.ReplaceAll(workload(kind, ""), `"app":"web"`, `"app":"other"`)
	}
	tests := []struct {
		name, kind, now string
		want            string // "" when valid
	}{
		{"deployment selector", "Deployment", relabel("Deployment"), `spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`},
		{"deployment replicas", "Deployment", workload("Deployment", `"replicas":3`), ""},
		{"replicaset selector", "ReplicaSet", relabel("ReplicaSet"), "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"other\"}"},
		{"daemonset selector", "DaemonSet", relabel("DaemonSet"), "field is immutable"},
		{"statefulset selector", "StatefulSet", relabel("StatefulSet"), "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"},
		{"statefulset service", "StatefulSet", workload("StatefulSet", `"serviceName":"other"`), "spec: Forbidden: updates to statefulset spec"},
		{"statefulset claims", "StatefulSet", workload("StatefulSet", `"volumeClaimTemplates":[{"metadata":{"name":"data"}}]`), "spec: Forbidden: updates to statefulset spec"},
		{"statefulset replicas and strategy", "StatefulSet", workload("StatefulSet", `"replicas":4,"updateStrategy":{"type":"OnDelete"},"minReadySeconds":3`), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plural := appsPlural[tt.kind]
			old := created(t, plural, workload(tt.kind, ""))
			obj := appsObject(t, plural, tt.now)
			got := builtin("apps", plural).Strategy.PrepareForUpdate(time.Time{}, obj, old).ToAggregate()
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("errors %v, want none", got)
			case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
				t.Errorf("errors %v, want %q", got, tt.want)
			}
		})
	}
}

// TestAppsUpdateCausesTwice: kube validates an updated ReplicaSet's or
// DaemonSet's spec twice and lists each cause twice; a Deployment's once.
func TestAppsUpdateCausesTwice(t *testing.T) {
	for kind, want := range map[string]int{"Deployment": 1, "ReplicaSet": 2, "DaemonSet": 2} {
		plural := appsPlural[kind]
		old := created(t, plural, workload(kind, ""))
		obj := appsObject(t, plural, strings.Replace(workload(kind, ""), `"containers"`, `"restartPolicy":"Never","containers"`, 1))
		errs := builtin("apps", plural).Strategy.PrepareForUpdate(time.Time{}, obj, old)
		if len(errs) != want {
			t.Errorf("%s: %d causes %v, want %d", kind, len(errs), errs, want)
		}
	}
}

// TestDaemonSetTemplateGeneration: the annotation counts template
// changes and ignores what clients write in it.
func TestDaemonSetTemplateGeneration(t *testing.T) {
	old := created(t, "daemonsets", workload("DaemonSet", ""))
	if got := nestedMap(old, false, "metadata", "annotations")[appsv1.DeprecatedTemplateGeneration]; got != "1" {
		t.Errorf("created: template generation %v, want 1", got)
	}
	tests := []struct {
		name, body, want string
	}{
		{"same template", workload("DaemonSet", `"minReadySeconds":5`), "1"},
		{"new image", strings.Replace(workload("DaemonSet", ""), `"image":"nginx"`, `"image":"nginx:2"`, 1), "2"},
		{"client value", strings.Replace(workload("DaemonSet", ""), `"metadata":{"name":"web"`, `"metadata":{"annotations":{"deprecated.daemonset.template.generation":"9"},"name":"web"`, 1), "1"},
	}
	for _, tt := range tests {
		obj := appsObject(t, "daemonsets", tt.body)
		if errs := (daemonSetStrategy{}).PrepareForUpdate(time.Time{}, obj, old); len(errs) > 0 {
			t.Fatalf("%s: %v", tt.name, errs)
		}
		if got := nestedMap(obj, false, "metadata", "annotations")[appsv1.DeprecatedTemplateGeneration]; got != tt.want {
			t.Errorf("%s: template generation %v, want %s", tt.name, got, tt.want)
		}
	}
}

// TestDaemonSetStatusKeepsTemplateGeneration: the annotation is spec in
// kube's internal type, so a status write cannot drop or change it.
func TestDaemonSetStatusKeepsTemplateGeneration(t *testing.T) {
	old := created(t, "daemonsets", workload("DaemonSet", ""))
	for _, meta := range []string{`"metadata":{"name":"web"`, `"metadata":{"annotations":{"deprecated.daemonset.template.generation":"7","x":"y"},"name":"web"`} {
		obj := appsObject(t, "daemonsets", strings.Replace(workload("DaemonSet", ""), `"metadata":{"name":"web"`, meta, 1))
		if errs := (daemonSetStrategy{}).PrepareForStatusUpdate(obj, old); len(errs) > 0 {
			t.Fatal(errs)
		}
		if got := nestedMap(obj, false, "metadata", "annotations")[appsv1.DeprecatedTemplateGeneration]; got != "1" {
			t.Errorf("%s: template generation after a status write %v, want 1", meta, got)
		}
	}
}

// TestDeploymentBumpsGeneration: annotations are desired state of a
// Deployment (its ReplicaSets copy them), labels are not.
func TestDeploymentBumpsGeneration(t *testing.T) {
	meta := func(m string) map[string]any {
		return appsObject(t, "deployments", `{"metadata":{"name":"web"`+m+`}}`)
	}
	tests := []struct {
		name     string
		obj, old map[string]any
		want     bool
	}{
		{"none", meta(""), meta(""), false},
		{"empty and none", meta(`,"annotations":{}`), meta(""), false},
		{"added", meta(`,"annotations":{"a":"b"}`), meta(""), true},
		{"changed", meta(`,"annotations":{"a":"c"}`), meta(`,"annotations":{"a":"b"}`), true},
		{"labels", meta(`,"labels":{"a":"c"}`), meta(""), false},
	}
	for _, tt := range tests {
		if got := (deploymentStrategy{}).BumpsGeneration(tt.obj, tt.old); got != tt.want {
			t.Errorf("%s: BumpsGeneration = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestAppsStatusUpdate: status writes keep the spec (and a
// Deployment's labels) and check the counts.
func TestAppsStatusUpdate(t *testing.T) {
	tests := []struct {
		kind, status string
		want         string
		keepsLabels  bool
	}{
		{"Deployment", `{"replicas":2,"readyReplicas":2,"availableReplicas":1}`, "", true},
		{"Deployment", `{"replicas":2,"readyReplicas":3}`, "status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas", true},
		{"Deployment", `{"replicas":2,"readyReplicas":1,"availableReplicas":2}`, "status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas", true},
		{"ReplicaSet", `{"replicas":-1}`, "status.replicas: Invalid value: -1: must be greater than or equal to 0", false},
		{"ReplicaSet", `{"replicas":1,"fullyLabeledReplicas":2}`, "status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas", false},
		{"StatefulSet", `{"replicas":1,"readyReplicas":1,"availableReplicas":2}`, "status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas", false},
		{"StatefulSet", `{"replicas":2,"readyReplicas":1,"availableReplicas":2}`, "status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas", false},
		{"DaemonSet", `{"numberReady":-1}`, "status.numberReady: Invalid value: -1: must be greater than or equal to 0", false},
		{"Deployment", `{"replicas":1,"terminatingReplicas":-1}`, "", true},
		{"ReplicaSet", `{"replicas":1,"terminatingReplicas":-1}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.kind+" "+tt.status, func(t *testing.T) {
			plural := appsPlural[tt.kind]
			old := created(t, plural, workload(tt.kind, `"minReadySeconds":1`))
			body := strings.Replace(workload(tt.kind, `"minReadySeconds":7`), `"metadata":{`, `"status":`+tt.status+`,"metadata":{"labels":{"new":"x"},`, 1)
			obj := appsObject(t, plural, body)
			got := builtin("apps", plural).Strategy.(StatusStrategy).PrepareForStatusUpdate(obj, old).ToAggregate()
			switch {
			case tt.want == "" && got != nil:
				t.Fatalf("errors %v, want none", got)
			case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
				t.Fatalf("errors %v, want %q", got, tt.want)
			}
			if v, _ := Lookup(obj, "spec.minReadySeconds"); v != int64(1) {
				t.Errorf("status write changed spec.minReadySeconds to %v", v)
			}
			if v, ok := nestedMap(obj, false, "status")["terminatingReplicas"]; ok {
				t.Errorf("status write kept terminatingReplicas %v, behind a gate v1.33 leaves off", v)
			}
			if l, _ := Lookup(obj, "metadata.labels.new"); (l == nil) != tt.keepsLabels {
				t.Errorf("labels after the status write: new=%v, want kept %v", l, tt.keepsLabels)
			}
		})
	}
}

// TestControllerRevision: data is a required JSON object that never
// changes; the revision number may (kube checks only its sign).
func TestControllerRevision(t *testing.T) {
	rev := func(extra string) map[string]any {
		return appsObject(t, "controllerrevisions", `{"metadata":{"name":"r"}`+extra+`}`)
	}
	create := []struct {
		name, extra, want string
	}{
		{"valid", `,"revision":1,"data":{"a":1}`, ""},
		{"no data", `,"revision":1`, "data: Required value: data is mandatory"},
		{"not an object", `,"revision":1,"data":[1]`, "data: Required value: data must be a valid JSON object"},
		{"negative", `,"revision":-1,"data":{}`, "revision: Invalid value: -1: must be greater than or equal to 0"},
	}
	for _, tt := range create {
		got := (controllerRevisionStrategy{}).PrepareForCreate(time.Time{}, rev(tt.extra)).ToAggregate()
		if (tt.want == "") != (got == nil) || (got != nil && !strings.Contains(got.Error(), tt.want)) {
			t.Errorf("create %s: errors %v, want %q", tt.name, got, tt.want)
		}
	}
	old := rev(`,"revision":1,"data":{"a":1}`)
	update := []struct {
		name, extra, want string
	}{
		{"revision", `,"revision":2,"data":{"a":1}`, ""},
		{"data", `,"revision":1,"data":{"a":2}`, `data: Invalid value: runtime.RawExtension{Raw:[]uint8{0x7b, 0x22, 0x61, 0x22, 0x3a, 0x32, 0x7d}, Object:runtime.Object(nil)}: field is immutable`},
	}
	for _, tt := range update {
		got := (controllerRevisionStrategy{}).PrepareForUpdate(time.Time{}, rev(tt.extra), old).ToAggregate()
		if (tt.want == "") != (got == nil) || (got != nil && !strings.Contains(got.Error(), tt.want)) {
			t.Errorf("update %s: errors %v, want %q", tt.name, got, tt.want)
		}
	}
}

// TestAppsScaleSelector: the Scale reports the selector in label
// selector syntax, expressions included.
func TestAppsScaleSelector(t *testing.T) {
	tests := []struct {
		plural, selector, want string
	}{
		{"deployments", `{"matchLabels":{"app":"web","tier":"fe"}}`, "app=web,tier=fe"},
		{"replicasets", `{"matchExpressions":[{"key":"app","operator":"In","values":["web","api"]}]}`, "app in (api,web)"},
		{"statefulsets", `{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"x","operator":"DoesNotExist"}]}`, "app=web,!x"},
	}
	for _, tt := range tests {
		obj := appsObject(t, tt.plural, `{"metadata":{"name":"w"},"spec":{"selector":`+tt.selector+`}}`)
		ss, ok := builtin("apps", tt.plural).Strategy.(ScaleSelectorStrategy)
		if !ok {
			t.Fatalf("%s: no ScaleSelectorStrategy", tt.plural)
		}
		if got := ss.ScaleSelector(obj); got != tt.want {
			t.Errorf("%s: selector %q, want %q", tt.plural, got, tt.want)
		}
	}
}

// TestAppsTableCells holds the workloads' rows to kube's printers.
func TestAppsTableCells(t *testing.T) {
	dep := appsObject(t, "deployments", `{"metadata":{"name":"web"},"spec":{"replicas":5,"selector":{"matchLabels":{"app":"web"}},`+
		`"template":{"spec":{"containers":[{"name":"a","image":"nginx"},{"name":"b","image":"redis:7"}]}}},`+
		`"status":{"readyReplicas":3,"updatedReplicas":4,"availableReplicas":2}}`)
	rs := appsObject(t, "replicasets", `{"metadata":{"name":"web"},"spec":{"replicas":5,"selector":{"matchExpressions":[{"key":"app","operator":"Exists"}]}},"status":{"replicas":4,"readyReplicas":1}}`)
	sts := appsObject(t, "statefulsets", `{"metadata":{"name":"web"},"spec":{"replicas":3},"status":{"readyReplicas":1}}`)
	ds := appsObject(t, "daemonsets", `{"metadata":{"name":"web"},"spec":{"selector":{},"template":{"spec":{"nodeSelector":{"disk":"ssd"}}}},`+
		`"status":{"desiredNumberScheduled":3,"currentNumberScheduled":2,"numberReady":1,"updatedNumberScheduled":2,"numberAvailable":1}}`)
	cr := appsObject(t, "controllerrevisions", `{"metadata":{"name":"r","ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"web","uid":"u","controller":true}]},"revision":3}`)
	orphan := appsObject(t, "controllerrevisions", `{"metadata":{"name":"r"},"revision":1}`)
	tests := []struct {
		plural string
		obj    map[string]any
		want   map[string]any
	}{
		{"deployments", dep, map[string]any{"Ready": "3/5", "Up-to-date": int64(4), "Available": int64(2), "Containers": "a,b", "Images": "nginx,redis:7", "Selector": "app=web"}},
		{"deployments", appsObject(t, "deployments", `{"metadata":{"name":"w"}}`), map[string]any{"Ready": "0/0", "Selector": "", "Containers": ""}},
		{"replicasets", rs, map[string]any{"Desired": int64(5), "Current": int64(4), "Ready": int64(1), "Selector": "app"}},
		{"replicasets", appsObject(t, "replicasets", `{"metadata":{"name":"w"},"spec":{"selector":{}}}`), map[string]any{"Selector": "<none>"}},
		{"statefulsets", sts, map[string]any{"Ready": "1/3"}},
		{"daemonsets", ds, map[string]any{"Desired": int64(3), "Current": int64(2), "Ready": int64(1), "Up-to-date": int64(2), "Available": int64(1), "Node Selector": "disk=ssd", "Selector": "<none>"}},
		{"daemonsets", appsObject(t, "daemonsets", `{"metadata":{"name":"w"}}`), map[string]any{"Node Selector": "<none>"}},
		{"controllerrevisions", cr, map[string]any{"Controller": "daemonset.apps/web", "Revision": int64(3)}},
		{"controllerrevisions", orphan, map[string]any{"Controller": "<none>"}},
	}
	for _, tt := range tests {
		cols := map[string]Column{}
		for _, c := range builtin("apps", tt.plural).Columns {
			cols[c.Name] = c
		}
		for name, want := range tt.want {
			c, ok := cols[name]
			if !ok {
				t.Fatalf("%s: no column %s", tt.plural, name)
			}
			if got, _ := c.Cell(tt.obj, time.Time{}); got != want {
				t.Errorf("%s %s = %#v, want %#v", tt.plural, name, got, want)
			}
		}
	}
}

// TestAppsColumns: the column order kubectl prints, wide ones last.
func TestAppsColumns(t *testing.T) {
	tests := map[string]string{
		"deployments":         "Ready Up-to-date Available Age Containers* Images* Selector*",
		"replicasets":         "Desired Current Ready Age Containers* Images* Selector*",
		"statefulsets":        "Ready Age Containers* Images*",
		"daemonsets":          "Desired Current Ready Up-to-date Available Node Selector Age Containers* Images* Selector*",
		"controllerrevisions": "Controller Revision Age",
	}
	for plural, want := range tests {
		var names []string
		for _, c := range builtin("apps", plural).Columns {
			n := c.Name
			if c.Priority == 1 {
				n += "*"
			}
			names = append(names, n)
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%s columns %q, want %q", plural, got, want)
		}
	}
}

// TestFieldSelectorRefusal: kinds kube gives a field label conversion
// (their own selectable fields; custom resources) say the label is not
// supported; the rest, the apps kinds among them, get the scheme's
// default words, as the oracle answers.
func TestFieldSelectorRefusal(t *testing.T) {
	tests := []struct {
		res  *Resource
		want string
	}{
		{builtin("apps", "replicasets"), `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{builtin("apps", "deployments"), `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{builtin("", "configmaps"), `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{builtin("", "pods"), "field label not supported: status.replicas"},
		{builtin("", "services"), "field label not supported: status.replicas"},
		{&Resource{Group: "example.com", Version: "v1", Plural: "widgets"}, "field label not supported: status.replicas"},
	}
	for _, tt := range tests {
		if tt.res.HasField("status.replicas") {
			t.Errorf("%s selects on status.replicas", tt.res.Plural)
		}
		if got := tt.res.FieldSelectorRefusal("status.replicas"); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.res.Plural, got, tt.want)
		}
	}
}

package registry

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldErrors renders errors as "path: message", the form compared.
func fieldErrors(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+": "+e.ErrorBody())
	}
	return out
}

// eventMap is a core/v1 Event in namespace default, with fields set over
// an old-style event about a pod in default.
func eventMap(set map[string]any) map[string]any {
	obj := map[string]any{
		"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": "e", "namespace": "default"},
		"involvedObject": map[string]any{"kind": "Pod", "name": "p", "namespace": "default"},
		"reason":         "R",
	}
	for k, v := range set {
		if v == nil {
			delete(obj, k)
			continue
		}
		obj[k] = v
	}
	return obj
}

// newStyle is what an event with an event time must also carry.
var newStyle = map[string]any{
	"eventTime": "2024-01-01T00:00:00.000000Z", "reportingComponent": "kubelet", "reportingInstance": "n1", "action": "Pulling",
}

func merged(ms ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func TestCoreEventValidation(t *testing.T) {
	tests := []struct {
		name string
		set  map[string]any
		want []string
	}{
		{"old-style event", nil, nil},
		{"old-style, object in another namespace", map[string]any{"involvedObject": map[string]any{"kind": "Pod", "name": "p", "namespace": "other"}},
			[]string{`involvedObject.namespace: Invalid value: "other": does not match event.namespace`}},
		{"old-style, cluster-scoped object in default", map[string]any{"involvedObject": map[string]any{"kind": "Node", "name": "n"}}, nil},
		{"new-style event", newStyle, nil},
		{"new-style, cluster-scoped object in default", merged(newStyle, map[string]any{"involvedObject": map[string]any{"kind": "Node", "name": "n"}}), nil},
		{"new-style without reporter, instance, action, reason", merged(newStyle, map[string]any{
			"reportingComponent": nil, "reportingInstance": nil, "action": nil, "reason": nil,
		}), []string{
			"reportingComponent: Required value",
			`reportingComponent: Invalid value: "": name part must be non-empty`,
			`reportingComponent: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			"reportingInstance: Required value", "action: Required value", "reason: Required value",
		}},
		{"new-style, overlong texts", merged(newStyle, map[string]any{
			"reportingInstance": strings.Repeat("i", 129), "action": strings.Repeat("a", 129),
			"reason": strings.Repeat("r", 129), "message": strings.Repeat("m", 1025),
		}), []string{
			`reportingInstance: Invalid value: "": can have at most 128 characters`,
			`action: Invalid value: "": can have at most 128 characters`,
			`reason: Invalid value: "": can have at most 128 characters`,
			`message: Invalid value: "": can have at most 1024 characters`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fieldErrors((coreEventStrategy{}).PrepareForCreate(time.Time{}, eventMap(tt.set)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// v1Event is a valid events.k8s.io/v1 Event with fields set over it.
func v1Event(set map[string]any) map[string]any {
	obj := map[string]any{
		"apiVersion": "events.k8s.io/v1", "kind": "Event",
		"metadata":  map[string]any{"name": "e", "namespace": "default"},
		"regarding": map[string]any{"kind": "Pod", "name": "p", "namespace": "default"},
		"eventTime": "2024-01-01T00:00:00.000000Z", "type": "Normal", "reason": "R", "action": "A",
		"reportingController": "ctl", "reportingInstance": "i", "note": "n",
	}
	for k, v := range set {
		if v == nil {
			delete(obj, k)
			continue
		}
		obj[k] = v
	}
	return obj
}

func TestEventsV1Validation(t *testing.T) {
	creates := []struct {
		name string
		set  map[string]any
		want []string
	}{
		{"valid", nil, nil},
		{"deprecated fields set", map[string]any{
			"deprecatedFirstTimestamp": "2024-01-01T00:00:00Z", "deprecatedLastTimestamp": "2024-01-01T00:00:00Z",
			"deprecatedCount": int64(2), "deprecatedSource": map[string]any{"host": "h"},
		}, []string{
			`firstTimestamp: Invalid value: "": needs to be unset`, `lastTimestamp: Invalid value: "": needs to be unset`,
			`count: Invalid value: "": needs to be unset`, `source: Invalid value: "": needs to be unset`,
		}},
		{"bad series and type", map[string]any{"series": map[string]any{"count": int64(1)}, "type": "Info"}, []string{
			`series.count: Invalid value: "": should be at least 2`, "series.lastObservedTime: Required value",
			`type: Invalid value: "": has invalid value: Info`,
		}},
		{"no reporter: the path is events.k8s.io's", map[string]any{"reportingController": nil}, []string{
			"reportingController: Required value",
			`reportingController: Invalid value: "": name part must be non-empty`,
			`reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		}},
	}
	for _, tt := range creates {
		t.Run("create "+tt.name, func(t *testing.T) {
			got := fieldErrors((eventsV1Strategy{}).PrepareForCreate(time.Time{}, v1Event(tt.set)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	updates := []struct {
		name string
		set  map[string]any
		want []string
	}{
		{"metadata only", map[string]any{"metadata": map[string]any{"name": "e", "namespace": "default", "labels": map[string]any{"a": "b"}}}, nil},
		{"a series starts", map[string]any{"series": map[string]any{"count": int64(2), "lastObservedTime": "2024-01-01T00:01:00.000000Z"}}, nil},
		{"everything else is immutable", map[string]any{
			"note": "m", "reason": "S", "type": "Warning", "action": "B", "reportingController": "c2", "reportingInstance": "j",
			"eventTime": "2024-01-01T00:00:01.000000Z", "deprecatedCount": int64(2),
		}, []string{
			`reason: Invalid value: "S": field is immutable`, `message: Invalid value: "m": field is immutable`,
			"count: Invalid value: 2: field is immutable",
			`reason: Invalid value: "S": field is immutable`, `type: Invalid value: "Warning": field is immutable`,
			"eventTime: Invalid value: 2024-01-01 00:00:01 +0000 UTC: field is immutable",
			`action: Invalid value: "B": field is immutable`, `reportingController: Invalid value: "c2": field is immutable`,
			`reportingInstance: Invalid value: "j": field is immutable`,
		}},
		{"regarding and related", map[string]any{
			"regarding": map[string]any{"kind": "Pod", "name": "q", "namespace": "default"},
			"related":   map[string]any{"kind": "Node", "name": "n"},
		}, []string{
			`involvedObject: Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"default", Name:"q", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable`,
			`related: Invalid value: core.ObjectReference{Kind:"Node", Namespace:"", Name:"n", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable`,
		}},
	}
	for _, tt := range updates {
		t.Run("update "+tt.name, func(t *testing.T) {
			got := fieldErrors((eventsV1Strategy{}).PrepareForUpdate(time.Time{}, v1Event(tt.set), v1Event(nil)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestLeaseValidation(t *testing.T) {
	tests := []struct {
		name      string
		spec, old map[string]any
		want      []string
		wantSpec  map[string]any
	}{
		{"valid", map[string]any{"leaseDurationSeconds": int64(15), "leaseTransitions": int64(0)}, nil, nil,
			map[string]any{"leaseDurationSeconds": int64(15), "leaseTransitions": int64(0)}},
		{"bad counts", map[string]any{"leaseDurationSeconds": int64(0), "leaseTransitions": int64(-1)}, nil, []string{
			"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
			"spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
		}, map[string]any{"leaseDurationSeconds": int64(0), "leaseTransitions": int64(-1)}},
		{"coordinated fields dropped on create", map[string]any{"strategy": "x", "preferredHolder": "h"}, nil, nil, map[string]any{}},
		{"coordinated fields kept when stored", map[string]any{"strategy": "x", "preferredHolder": "h"},
			map[string]any{"strategy": "x"}, nil, map[string]any{"strategy": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := map[string]any{"spec": tt.spec}
			var errs field.ErrorList
			if tt.old == nil {
				errs = (leaseStrategy{}).PrepareForCreate(time.Time{}, obj)
			} else {
				errs = (leaseStrategy{}).PrepareForUpdate(time.Time{}, obj, map[string]any{"spec": tt.old})
			}
			if got := fieldErrors(errs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(obj["spec"], tt.wantSpec) {
				t.Errorf("spec %v, want %v", obj["spec"], tt.wantSpec)
			}
		})
	}
}

func TestNamespaceFinalizerValidation(t *testing.T) {
	tests := []struct {
		name string
		fins []any
		want []string
	}{
		{"none: kubernetes is added", nil, nil},
		{"standard and qualified", []any{"orphan", "foregroundDeletion", "example.com/x"}, nil},
		{"unqualified", []any{"foo"}, []string{`spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified`}},
		{"bad prefix", []any{"Bad_/x"}, []string{`spec.finalizers: Invalid value: "Bad_/x": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := map[string]any{"spec": map[string]any{"finalizers": tt.fins}}
			if got := fieldErrors((namespaceStrategy{}).PrepareForCreate(time.Time{}, obj)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestServiceAccountSecretReferences(t *testing.T) {
	obj := map[string]any{"secrets": []any{map[string]any{"name": "s", "namespace": "x", "kind": "Secret"}, map[string]any{"uid": "u"}}}
	if errs := (serviceAccountStrategy{}).PrepareForCreate(time.Time{}, obj); len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []any{map[string]any{"name": "s"}, map[string]any{}}
	if !reflect.DeepEqual(obj["secrets"], want) {
		t.Errorf("secrets %v, want %v", obj["secrets"], want)
	}
}

func TestSecretTypeValidation(t *testing.T) {
	tests := []struct {
		name string
		obj  map[string]any
		want []string
	}{
		{"opaque holds anything", map[string]any{"type": "Opaque"}, nil},
		{"custom type holds anything", map[string]any{"type": "example.com/x"}, nil},
		{"basic auth with a password only", map[string]any{"type": "kubernetes.io/basic-auth", "data": map[string]any{"password": ""}}, nil},
		{"basic auth with neither", map[string]any{"type": "kubernetes.io/basic-auth"},
			[]string{"data[username]: Required value", "data[password]: Required value"}},
		{"ssh auth with an empty key", map[string]any{"type": "kubernetes.io/ssh-auth", "data": map[string]any{"ssh-privatekey": ""}},
			[]string{"data[ssh-privatekey]: Required value"}},
		{"dockercfg missing", map[string]any{"type": "kubernetes.io/dockercfg"}, []string{"data[.dockercfg]: Required value"}},
		{"dockercfg JSON", map[string]any{"type": "kubernetes.io/dockercfg", "data": map[string]any{".dockercfg": "e30="}}, nil},
		{"token with its service account", map[string]any{"type": "kubernetes.io/service-account-token",
			"metadata": map[string]any{"annotations": map[string]any{"kubernetes.io/service-account.name": "sa"}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fieldErrors((secretStrategy{}).PrepareForCreate(time.Time{}, tt.obj)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestImmutableData(t *testing.T) {
	const msg = "Forbidden: field is immutable when `immutable` is set"
	tests := []struct {
		name     string
		obj, old map[string]any
		want     []string
	}{
		{"mutable", map[string]any{"data": map[string]any{"a": "y"}}, map[string]any{"data": map[string]any{"a": "x"}}, nil},
		{"immutable, unchanged", map[string]any{"immutable": true, "data": map[string]any{"a": "x"}},
			map[string]any{"immutable": true, "data": map[string]any{"a": "x"}}, nil},
		{"made mutable", map[string]any{"immutable": false, "data": map[string]any{"a": "x"}},
			map[string]any{"immutable": true, "data": map[string]any{"a": "x"}}, []string{"immutable: " + msg}},
		{"data changed", map[string]any{"immutable": true, "binaryData": map[string]any{"b": "eA=="}},
			map[string]any{"immutable": true, "data": map[string]any{"a": "x"}}, []string{"data: " + msg, "binaryData: " + msg}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fieldErrors((configMapStrategy{}).PrepareForUpdate(time.Time{}, tt.obj, tt.old)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestNamespaceFinalizeValidation(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{"finalizers": []any{"kubernetes", "foo", "example.com/x"}}}
	got := fieldErrors((namespaceStrategy{}).ValidateFinalize(obj))
	want := []string{`spec.finalizers[1]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

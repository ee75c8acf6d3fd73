package apiserver_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestBuiltinValidationParity writes invalid objects of the built-in
// kinds and checks the 422 messages, taken from kube-apiserver v1.33.
func TestBuiltinValidationParity(t *testing.T) {
	c := newClient(t)
	const (
		events   = "/api/v1/namespaces/default/events"
		v1events = "/apis/events.k8s.io/v1/namespaces/default/events"
	)
	c.must(http.StatusCreated, "POST", v1events, `{"metadata":{"name":"x2"},"eventTime":"2024-01-01T00:00:00.000000Z",
		"regarding":{"kind":"ReplicaSet","name":"p","namespace":"default"},"type":"Normal","reason":"R","action":"A",
		"reportingController":"ctl","reportingInstance":"inst","note":"hi"}`)
	cases := []struct {
		name, method, path, body, want string
	}{
		{"lease counts", "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
			`{"metadata":{"name":"l1"},"spec":{"leaseDurationSeconds":0,"leaseTransitions":-1}}`,
			`Lease.coordination.k8s.io "l1" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]`},
		{"namespace finalizers", "POST", "/api/v1/namespaces",
			`{"metadata":{"name":"n1"},"spec":{"finalizers":["foo","a/b"]}}`,
			`Namespace "n1" is invalid: spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified`},
		{"event in another namespace", "POST", events,
			`{"metadata":{"name":"e1"},"involvedObject":{"kind":"Pod","name":"p","namespace":"other"},"reason":"R"}`,
			`Event "e1" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace`},
		{"core event with an event time", "POST", events,
			`{"metadata":{"name":"e2"},"eventTime":"2024-01-01T00:00:00.000000Z","involvedObject":{"kind":"Pod","name":"p"},"reportingComponent":"c","reportingInstance":"i"}`,
			`Event "e2" is invalid: [action: Required value, reason: Required value]`},
		{"events.k8s.io create", "POST", v1events,
			`{"metadata":{"name":"x1"},"regarding":{"kind":"Pod","name":"p","namespace":"default"},"type":"Bad","deprecatedCount":3,"deprecatedSource":{"component":"c"},"series":{"count":1}}`,
			`Event "x1" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value, eventTime: Required value, type: Invalid value: "": has invalid value: Bad, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]`},
		{"events.k8s.io update", "PUT", v1events + "/x2",
			`{"metadata":{"name":"x2"},"eventTime":"2024-01-01T00:00:00.000000Z","regarding":{"kind":"ReplicaSet","name":"q","namespace":"default"},
			"type":"Warning","reason":"S","action":"A","reportingController":"ctl","reportingInstance":"inst","note":"other"}`,
			`Event "x2" is invalid: [involvedObject: Invalid value: core.ObjectReference{Kind:"ReplicaSet", Namespace:"default", Name:"q", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable, reason: Invalid value: "S": field is immutable, message: Invalid value: "other": field is immutable, type: Invalid value: "Warning": field is immutable]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := c.must(http.StatusUnprocessableEntity, tc.method, tc.path, tc.body)["message"].(string)
			if strings.HasPrefix(tc.path, v1events) {
				// kube-apiserver names the stored kind (core's "Event")
				// in these; the store here names the served one, so
				// only what follows the kind is compared.
				_, got, _ = strings.Cut(got, " is invalid: ")
				_, tc.want, _ = strings.Cut(tc.want, " is invalid: ")
			}
			if got != tc.want {
				t.Errorf("message\n got %v\nwant %s", got, tc.want)
			}
		})
	}

	t.Run("lease coordination fields dropped", func(t *testing.T) {
		got := c.must(http.StatusCreated, "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
			`{"metadata":{"name":"l2"},"spec":{"holderIdentity":"me","strategy":"bogus","preferredHolder":"x"}}`)
		want := map[string]any{"holderIdentity": "me"}
		if !reflect.DeepEqual(got["spec"], want) {
			t.Errorf("spec %v, want %v", got["spec"], want)
		}
	})
	t.Run("service account secrets keep their names", func(t *testing.T) {
		got := c.must(http.StatusCreated, "POST", "/api/v1/namespaces/default/serviceaccounts",
			`{"metadata":{"name":"sa1"},"secrets":[{"name":"s1","namespace":"x","kind":"Secret"}]}`)
		want := []any{map[string]any{"name": "s1"}}
		if !reflect.DeepEqual(got["secrets"], want) {
			t.Errorf("secrets %v, want %v", got["secrets"], want)
		}
	})
}

// TestTableParity reads built-in and custom tables as kubectl does and
// checks the columns and cells against kube-apiserver v1.33's.
func TestTableParity(t *testing.T) {
	c := newClient(t)
	now := time.Now().UTC()
	ago := func(h int) string { return now.Add(-time.Duration(h) * time.Hour).Format(time.RFC3339) }
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces/default/events", `{"metadata":{"name":"c1"},
		"involvedObject":{"kind":"Node","name":"n1"},"reason":"R","message":" m ","type":"Normal","count":4,
		"firstTimestamp":"`+ago(50)+`","lastTimestamp":"`+ago(30)+`","source":{"component":"kubelet","host":"n1"}}`)
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces/default/events", `{"metadata":{"name":"c2"},"involvedObject":{"kind":"Node"},"reason":"R"}`)
	c.must(http.StatusCreated, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", `{"metadata":{"name":"x2"},
		"eventTime":"`+now.Add(-30*time.Hour).Format("2006-01-02T15:04:05.000000Z07:00")+`",
		"regarding":{"kind":"ReplicaSet","name":"p","namespace":"default","fieldPath":"spec.x"},"type":"Normal","reason":"R","action":"A",
		"reportingController":"ctl","reportingInstance":"inst","note":"  hi  "}`)
	c.must(http.StatusCreated, "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", `{"metadata":{"name":"l"},"spec":{}}`)
	c.must(http.StatusCreated, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", printerColumnsCRD)
	gizmos := "/apis/example.com/v1/namespaces/default/gizmos"
	for _, g := range []string{
		`{"metadata":{"name":"empty"}}`,
		`{"metadata":{"name":"full"},"spec":{"s":"x","i":3,"n":1.5,"b":true,"d":"` + ago(30) + `"}}`,
		`{"metadata":{"name":"mixed"},"spec":{"s":{"a":[1,2]},"i":2.7,"n":4,"b":"yes","d":"nope"}}`,
		`{"metadata":{"name":"nulls"},"spec":{"s":null,"i":null,"d":null,"b":false}}`,
		`{"metadata":{"name":"odd"},"spec":{"s":2.5,"i":"7","n":"1","b":1,"d":""}}`,
	} {
		c.must(http.StatusCreated, "POST", gizmos, `{"apiVersion":"example.com/v1","kind":"Gizmo",`+g[1:])
	}
	eventCols := []string{"Last Seen", "Type", "Reason", "Object", "Subobject", "Source", "Message", "First Seen", "Count", "Name"}
	eventRows := [][]any{
		{"30h", "Normal", "R", "node/n1", "", "kubelet, n1", "m", "2d2h", float64(4), "c1"},
		{"<unknown>", "", "R", "node", "", "", "", "<unknown>", float64(1), "c2"},
		{"30h", "Normal", "R", "replicaset/p", "spec.x", "ctl, inst", "hi", "30h", float64(1), "x2"},
	}
	cases := []struct {
		name, path string
		cols       []string
		rows       [][]any // Age cells are left out: they depend on the test's speed
	}{
		{"core events", "/api/v1/namespaces/default/events", eventCols, eventRows},
		{"events.k8s.io events", "/apis/events.k8s.io/v1/namespaces/default/events", eventCols, eventRows},
		{"leases", "/apis/coordination.k8s.io/v1/namespaces/default/leases", []string{"Name", "Holder", "Age"}, [][]any{{"l", ""}}},
		{"gizmos", gizmos, []string{"Name", "S", "I", "N", "B", "D"}, [][]any{
			{"empty", nil, nil, nil, nil, nil},
			{"full", "x", float64(3), 1.5, true, "30h"},
			{"mixed", `{"a":[1,2]}`, float64(2), float64(4), nil, "<invalid>"},
			{"nulls", "<no value>", nil, nil, false, nil},
			{"odd", "2.5", nil, nil, nil, "<unknown>"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cols, rows := tableOf(t, c.must(http.StatusOK, "GET", tc.path, nil, "Accept", tableAccept))
			if !reflect.DeepEqual(cols, tc.cols) {
				t.Errorf("columns %v, want %v", cols, tc.cols)
			}
			if len(rows) != len(tc.rows) {
				t.Fatalf("%d rows, want %d: %v", len(rows), len(tc.rows), rows)
			}
			for i, want := range tc.rows {
				if got := rows[i][:len(want)]; !reflect.DeepEqual(got, want) {
					t.Errorf("row %d: %v, want %v", i, got, want)
				}
			}
		})
	}
}

const printerColumnsCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"gizmos.example.com"},
"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gizmos","singular":"gizmo","kind":"Gizmo","listKind":"GizmoList"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
"additionalPrinterColumns":[{"name":"S","type":"string","jsonPath":".spec.s"},{"name":"I","type":"integer","jsonPath":".spec.i"},
{"name":"N","type":"number","jsonPath":".spec.n"},{"name":"B","type":"boolean","jsonPath":".spec.b"},{"name":"D","type":"date","jsonPath":".spec.d"}]}]}}`

// TestBuiltinColumnParity checks the column definitions of built-in
// tables against kube-apiserver v1.33's: names, types, formats,
// priorities and the start of each description.
func TestBuiltinColumnParity(t *testing.T) {
	c := newClient(t)
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces/default/secrets", `{"metadata":{"name":"sec"},"stringData":{"a":"b"}}`)
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"sa1"},"secrets":[{"name":"s1"}]}`)
	const (
		name = "Name|string|name|0|Name must be unique within a namespace. Is required when cre"
		age  = "Age|string||0|CreationTimestamp is a timestamp representing the server tim"
	)
	cases := []struct {
		path string
		cols []string
		row  []any // the named object's cells before Age
	}{
		{"/api/v1/namespaces", []string{name, "Status|string||0|The status of the namespace", age}, []any{"default", "Active"}},
		{"/api/v1/namespaces/default/configmaps", []string{name, "Data|string||0|Data contains the configuration data. Each key must consist ", age}, nil},
		{"/api/v1/namespaces/default/secrets", []string{name,
			"Type|string||0|Used to facilitate programmatic handling of secret data. Mor",
			"Data|string||0|Data contains the secret data. Each key must consist of alph", age}, []any{"sec", "Opaque", float64(1)}},
		{"/api/v1/namespaces/default/serviceaccounts", []string{name,
			"Secrets|string||0|Secrets is a list of the secrets in the same namespace that ", age}, []any{"sa1", float64(1)}},
		{"/apis/coordination.k8s.io/v1/namespaces/default/leases", []string{name,
			"Holder|string||0|holderIdentity contains the identity of the holder of a curr", age}, nil},
		{"/api/v1/namespaces/default/endpoints", []string{name,
			"Endpoints|string||0|The set of all endpoints is the union of all subsets. Addres", age}, nil},
		{"/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", []string{name,
			"AddressType|string||0|addressType specifies the type of address carried by this En",
			"Ports|string||0|ports specifies the list of network ports exposed by each en",
			"Endpoints|string||0|endpoints is a list of unique endpoints in this slice. Each ", age}, nil},
		{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", []string{name,
			"Created At|date||0|CreationTimestamp is a timestamp representing the server tim"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			tbl := c.must(http.StatusOK, "GET", tc.path, nil, "Accept", tableAccept)
			var cols []string
			for _, d := range tbl["columnDefinitions"].([]any) {
				d := d.(map[string]any)
				desc := str(d["description"])
				desc = desc[:min(len(desc), 60)]
				cols = append(cols, strings.Join([]string{str(d["name"]), str(d["type"]), str(d["format"]), mustJSON(d["priority"]), desc}, "|"))
			}
			if !reflect.DeepEqual(cols, tc.cols) {
				t.Errorf("columns\n got %q\nwant %q", cols, tc.cols)
			}
			if tc.row == nil {
				return
			}
			_, rows := tableOf(t, tbl)
			for _, r := range rows {
				if r[0] == tc.row[0] {
					if got := r[:len(tc.row)]; !reflect.DeepEqual(got, tc.row) {
						t.Errorf("row %v, want %v", got, tc.row)
					}
					return
				}
			}
			t.Errorf("no row %v in %v", tc.row[0], rows)
		})
	}
}

// TestDataKindParity checks the ConfigMap and Secret rules beyond keys
// against kube-apiserver v1.33's answers: what a Secret's type requires,
// and that an immutable object stays as it is.
func TestDataKindParity(t *testing.T) {
	c := newClient(t)
	const (
		secrets = "/api/v1/namespaces/default/secrets"
		cms     = "/api/v1/namespaces/default/configmaps"
	)
	c.must(http.StatusCreated, "POST", secrets, `{"metadata":{"name":"t1"},"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}}`)
	c.must(http.StatusCreated, "POST", secrets, `{"metadata":{"name":"t4"},"immutable":true,"data":{"a":"eA=="}}`)
	c.must(http.StatusCreated, "POST", cms, `{"metadata":{"name":"c4"},"immutable":true,"data":{"a":"x"}}`)
	cases := []struct {
		name, method, path, body, want string
	}{
		{"update without the type", "PUT", secrets + "/t1", `{"metadata":{"name":"t1"},"data":{"tls.crt":"","tls.key":""}}`,
			`Secret "t1" is invalid: type: Invalid value: "Opaque": field is immutable`},
		{"tls without its keys", "POST", secrets, `{"metadata":{"name":"t2"},"type":"kubernetes.io/tls","data":{"a":""}}`,
			`Secret "t2" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]`},
		{"docker config not JSON", "POST", secrets, `{"metadata":{"name":"t3"},"type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"eA=="}}`,
			`Secret "t3" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character 'x' looking for beginning of value`},
		{"immutable secret", "PUT", secrets + "/t4", `{"metadata":{"name":"t4"},"data":{"a":"eQ=="}}`,
			"Secret \"t4\" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set]"},
		{"token without its service account", "POST", secrets, `{"metadata":{"name":"t5"},"type":"kubernetes.io/service-account-token"}`,
			`Secret "t5" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value`},
		{"immutable config map", "PUT", cms + "/c4", `{"metadata":{"name":"c4"},"binaryData":{"b":"eA=="}}`,
			"ConfigMap \"c4\" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set, binaryData: Forbidden: field is immutable when `immutable` is set]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := c.must(http.StatusUnprocessableEntity, tc.method, tc.path, tc.body)
			if got["message"] != tc.want {
				t.Errorf("message\n got %v\nwant %s", got["message"], tc.want)
			}
		})
	}
}

package typedjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/randfill"
)

// reference is the path a Decoder stands in for: the strict decoder into
// the Go type, then the unstructured converter. ok is false when the
// decoder fails or reports a strict problem.
func reference(t reflect.Type, body []byte) (map[string]any, bool) {
	obj := reflect.New(t).Interface()
	strict, err := sigsjson.UnmarshalStrict(body, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil || len(strict) > 0 {
		return nil, false
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, false
	}
	return m, true
}

// checkAgainstReference fails t when the Decoder of typ answers body
// otherwise than the reference path, and reports whether it answered.
func checkAgainstReference(t testing.TB, typ reflect.Type, body []byte) bool {
	t.Helper()
	d := For(typ)
	if d == nil {
		t.Fatalf("%v has no plan", typ)
	}
	got, ok := d.Decode(body)
	if !ok {
		return false
	}
	want, wantOK := reference(typ, body)
	if !wantOK {
		t.Fatalf("%v: answered %s, which the reference path refuses", typ, body)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%v: %s\ngot  %#v\nwant %#v", typ, body, got, want)
	}
	return true
}

func TestDecodeMatchesReference(t *testing.T) {
	cm := reflect.TypeFor[corev1.ConfigMap]()
	pod := reflect.TypeFor[corev1.Pod]()
	tests := []struct {
		name   string
		typ    reflect.Type
		body   string
		answer bool // false: the reference path must answer
	}{
		{"client-go's create", cm, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","creationTimestamp":null},"data":{"k":"v"}}`, true},
		{"empty object", cm, `{}`, true},
		{"spaces", cm, " {\n \"metadata\" : { \"name\" : \"a\" } ,\t\"data\":{ } }\n", true},
		{"nulls", cm, `{"metadata":null,"data":null,"binaryData":null,"immutable":null}`, true},
		{"null values", cm, `{"data":{"a":null},"binaryData":{"b":null}}`, true},
		{"binary data", cm, `{"binaryData":{"b":"aGVsbG8=","e":""}}`, true},
		{"binary data with a line break", cm, `{"binaryData":{"b":"aGVs\r\nbG8="}}`, true},
		{"escaped strings and keys", cm, `{"data":{"\u003ca\u003e":"\u00e9\n\"x\""}}`, true},
		{"immutable false", cm, `{"immutable":false}`, true},
		{"times", cm, `{"metadata":{"creationTimestamp":"2024-01-02T03:04:05Z","deletionTimestamp":"2024-01-02T03:04:05+02:00"}}`, true},
		{"integers", cm, `{"metadata":{"generation":-0,"deletionGracePeriodSeconds":30}}`, true},
		{"owner references", cm, `{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u","controller":true},{}]}}`, true},
		{"managed fields", cm, `{"metadata":{"managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]}}`, true},
		{"empty slices", cm, `{"metadata":{"finalizers":[],"ownerReferences":[]}}`, true},
		{"a pod", pod, `{"spec":{"containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":"100m"}},"ports":[{"containerPort":80}],
			"readinessProbe":{"httpGet":{"port":"http"}}}],"terminationGracePeriodSeconds":5},"status":{}}`, true},

		{"unknown field", cm, `{"dataa":{}}`, false},
		{"unknown nested field", cm, `{"metadata":{"nme":"a"}}`, false},
		{"field in another case", cm, `{"Data":{}}`, false},
		{"repeated field", cm, `{"data":{},"data":{}}`, false},
		{"repeated map key", cm, `{"data":{"a":"1","a":"2"}}`, false},
		{"escaped field name", cm, `{"d\u0061ta":{}}`, false},
		{"number for a string", cm, `{"data":{"a":1}}`, false},
		{"string for a bool", cm, `{"immutable":"true"}`, false},
		{"float for an integer", cm, `{"metadata":{"generation":1.0}}`, false},
		{"exponent for an integer", cm, `{"metadata":{"generation":1e3}}`, false},
		{"int32 overflow", pod, `{"spec":{"containers":[{"ports":[{"containerPort":2147483648}]}]}}`, false},
		{"bad base64", cm, `{"binaryData":{"b":"!!"}}`, false},
		{"invalid UTF-8", cm, "{\"data\":{\"a\":\"\xff\"}}", false},
		{"trailing text", cm, `{} {}`, false},
		{"not an object", cm, `[]`, false},
		{"bad time", cm, `{"metadata":{"creationTimestamp":"yesterday"}}`, false},
		{"deep nesting in a field read by reference", cm, `{"metadata":{"creationTimestamp":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}`, false},
		{"unknown field in a field read by reference", pod, `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":"http","x":1}}}]}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkAgainstReference(t, tt.typ, []byte(tt.body))
			if got != tt.answer {
				t.Errorf("answered = %v, want %v", got, tt.answer)
			}
		})
	}
}

// kinds are the Go types of typed kinds the random test covers.
var kinds = []reflect.Type{
	reflect.TypeFor[corev1.ConfigMap](), reflect.TypeFor[corev1.Secret](), reflect.TypeFor[corev1.Pod](),
	reflect.TypeFor[corev1.Service](), reflect.TypeFor[corev1.Node](), reflect.TypeFor[corev1.Namespace](),
	reflect.TypeFor[corev1.Event](), reflect.TypeFor[appsv1.Deployment](), reflect.TypeFor[appsv1.StatefulSet](),
	reflect.TypeFor[batchv1.Job](), reflect.TypeFor[batchv1.CronJob](), reflect.TypeFor[coordinationv1.Lease](),
	reflect.TypeFor[rbacv1.ClusterRole](), reflect.TypeFor[discoveryv1.EndpointSlice](),
	reflect.TypeFor[apiextensionsv1.CustomResourceDefinition](),
}

// filler makes random objects whose fields with their own forms hold
// values those forms can write.
func filler(seed uint64) *randfill.Filler {
	r := rand.NewSource(int64(seed))
	return randfill.New().NilChance(0.3).NumElements(0, 3).MaxDepth(6).RandSource(r).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = resource.MustParse([]string{"0", "100m", "1Gi", "2", "1.5"}[c.Intn(5)])
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31())
			} else {
				*v = intstr.FromString(c.String(8))
			}
		},
		func(t *metav1.Time, c randfill.Continue) {
			if c.Bool() {
				*t = metav1.Unix(c.Int63n(4e9), 0)
			}
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(metav1.Unix(c.Int63n(4e9), c.Int63n(1e9)).Time)
		},
		func(f *metav1.FieldsV1, c randfill.Continue) { f.SetRawBytes([]byte(`{"f:a":{}}`)) },
		func(e *runtime.RawExtension, c randfill.Continue) { e.Raw = []byte(`{"a":1}`) },
		func(j *apiextensionsv1.JSON, c randfill.Continue) { j.Raw = []byte(`[1,"x"]`) },
	)
}

func TestDecodeRandomObjects(t *testing.T) {
	for _, typ := range kinds {
		t.Run(typ.Name(), func(t *testing.T) {
			f := filler(uint64(len(typ.Name())))
			answered, tried := 0, 0
			for range 300 {
				obj := reflect.New(typ).Interface()
				f.Fill(obj)
				body, err := json.Marshal(obj)
				if err != nil {
					continue // a random value its own form cannot write
				}
				tried++
				if checkAgainstReference(t, typ, body) {
					answered++
				}
				var indented bytes.Buffer
				if err := json.Indent(&indented, body, "", " "); err != nil {
					t.Fatal(err)
				}
				checkAgainstReference(t, typ, indented.Bytes())
			}
			// Bodies written by encoding/json from Go values hold nothing
			// the reference path must answer for.
			if tried < 100 || answered != tried {
				t.Errorf("answered %d of %d bodies", answered, tried)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	for _, typ := range kinds[:3] {
		fl := filler(1)
		for range 5 {
			obj := reflect.New(typ).Interface()
			fl.Fill(obj)
			if body, err := json.Marshal(obj); err == nil {
				f.Add(uint8(len(typ.Name())), body)
			}
		}
	}
	f.Add(uint8(0), []byte(`{"data":{"a":"b"},"metadata":{"creationTimestamp":null}}`))
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		typ := kinds[int(kind)%len(kinds)]
		checkAgainstReference(t, typ, body)
	})
}

func ExampleDecoder_Decode() {
	d := For(reflect.TypeFor[corev1.ConfigMap]())
	obj, ok := d.Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","creationTimestamp":null},"data":{"k":"v"}}`))
	fmt.Println(ok, obj["data"], obj["metadata"])
	_, ok = d.Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMap","dta":{}}`))
	fmt.Println(ok)
	// Output:
	// true map[k:v] map[name:a]
	// false
}

package protobuf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var partialGVK = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")

// checkPartialItem checks PartialItem against the decoder's answer for the
// same JSON: the same bytes, or false where the decoder fails. It returns
// whether PartialItem answered.
func checkPartialItem(t *testing.T, objJSON []byte) bool {
	t.Helper()
	got, ok := PartialItem(objJSON)
	want, err := Default().EncodeItem(partialGVK, objJSON)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("PartialItem answered JSON the decoder refuses (%v):\n%s", err, objJSON)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("PartialItem differs from the decoder for\n%s\ngot  %x\nwant %x", objJSON, got, want)
	}
	return true
}

func TestPartialItem(t *testing.T) {
	for _, tc := range []struct {
		name   string
		json   string
		answer bool // false: left to the decoder
	}{
		{"stored configmap", string(configMapJSON("a", "12", 3)), true},
		{"empty metadata", `{"metadata":{}}`, true},
		{"metadata first, long data", `{"metadata":{"name":"x"},"data":{"k":"` + string(bytes.Repeat([]byte("v"), 4096)) + `"}}`, true},
		{"all fields", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","generateName":"p-","namespace":"ns","selfLink":"/x","uid":"u-1","resourceVersion":"99","generation":7,"creationTimestamp":"2026-11-27T10:00:00Z","deletionTimestamp":"2026-11-27T10:05:00Z","deletionGracePeriodSeconds":30,"labels":{"a":"1","b":""},"annotations":{"z":"26","m":"13"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u-0","controller":true,"blockOwnerDeletion":false},{"apiVersion":"v1","kind":"X","name":"y","uid":"u-2"}],"finalizers":["a/b","c"],"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-11-27T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:a":{}}}}},{"manager":"m","operation":"Apply","subresource":"status"}]},"spec":{"n":[1,2.5e3,-0,true,null]}}`, true},
		{"nulls", `{"metadata":{"name":null,"generation":null,"creationTimestamp":null,"deletionTimestamp":null,"labels":null,"ownerReferences":[null],"managedFields":[{"time":null,"fieldsV1":null}],"finalizers":null}}`, true},
		{"zero and fractional times", `{"metadata":{"creationTimestamp":"0001-01-01T00:00:00Z","deletionTimestamp":"2026-11-27T10:00:00.123456789+02:00"}}`, true},
		{"negative and large numbers", `{"metadata":{"generation":-9223372036854775808,"deletionGracePeriodSeconds":9223372036854775807}}`, true},
		{"escaped strings", `{"metadata":{"name":"a\"b\u00e9\n","labels":{"k":"\/"},"finalizers":["\t"]}}`, true},
		{"non-ASCII", `{"metadata":{"name":"é","annotations":{"ü":"日本"}}}`, true},
		{"unknown fields skipped", `{"metadata":{"name":"x","clusterName":"c","extra":{"a":[1,{"b":null}]}},"other":"x"}`, true},
		{"space", " {\n \"metadata\" : { \"name\" : \"x\" , \"labels\" : { } , \"managedFields\" : [ { \"fieldsV1\" : { \"f:a\" : { } } } ] } } \n", true},
		{"unsorted labels", `{"metadata":{"labels":{"b":"2","a":"1","c":"3"}}}`, true},

		{"no metadata", `{"kind":"ConfigMap"}`, false},
		{"repeated metadata", `{"metadata":{"name":"a"},"metadata":{"name":"b"}}`, false},
		{"repeated field", `{"metadata":{"name":"a","name":"b"}}`, false},
		{"repeated label", `{"metadata":{"labels":{"b":"1","a":"2","b":"3"}}}`, false},
		{"escaped key", `{"metadata":{"n\u0061me":"a"}}`, false},
		{"fractional generation", `{"metadata":{"generation":1.0}}`, false},
		{"exponent generation", `{"metadata":{"generation":1e3}}`, false},
		{"generation as string", `{"metadata":{"generation":"1"}}`, false},
		{"overflowing generation", `{"metadata":{"generation":9223372036854775808}}`, false},
		{"bad time", `{"metadata":{"creationTimestamp":"yesterday"}}`, false},
		{"empty time", `{"metadata":{"creationTimestamp":""}}`, false},
		{"label value null", `{"metadata":{"labels":{"a":null}}}`, false},
		{"invalid UTF-8", "{\"metadata\":{\"name\":\"\xff\"}}", false},
		{"control character", "{\"metadata\":{\"name\":\"a\x01\"}}", false},
		{"trailing garbage", `{"metadata":{}} x`, false},
		{"truncated", `{"metadata":{"name":"x"`, false},
		{"fieldsV1 not an object", `{"metadata":{"managedFields":[{"fieldsV1":"x"}]}}`, false},
		{"not an object", `[]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkPartialItem(t, []byte(tc.json)); got != tc.answer {
				t.Errorf("answered = %v, want %v", got, tc.answer)
			}
		})
	}
}

// TestPartialItemRandom compares PartialItem with the decoder on random
// metadata written the way the server stores it.
func TestPartialItemRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		obj := map[string]any{"apiVersion": "v1", "kind": "Thing", "metadata": randomMeta(r), "data": map[string]string{"k": randomString(r)}}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !checkPartialItem(t, b) {
			t.Fatalf("case %d: not answered:\n%s", i, b)
		}
	}
}

func randomMeta(r *rand.Rand) metav1.ObjectMeta {
	maybe := func() bool { return r.IntN(3) == 0 }
	m := metav1.ObjectMeta{
		Name: randomString(r), GenerateName: randomString(r), Namespace: randomString(r),
		UID: types.UID("u-" + randomString(r)), ResourceVersion: fmt.Sprint(r.Int64()),
		Generation:        r.Int64N(1<<40) - 1<<20,
		CreationTimestamp: metav1.NewTime(time.Unix(r.Int64N(4e9), 0)),
	}
	if maybe() {
		ts := metav1.NewTime(time.Unix(r.Int64N(4e9), 0))
		m.DeletionTimestamp = &ts
		g := r.Int64N(600)
		m.DeletionGracePeriodSeconds = &g
	}
	for range r.IntN(4) {
		if m.Labels == nil {
			m.Labels, m.Annotations = map[string]string{}, map[string]string{}
		}
		m.Labels[randomString(r)] = randomString(r)
		m.Annotations[randomString(r)] = randomString(r)
	}
	for range r.IntN(3) {
		o := metav1.OwnerReference{APIVersion: "v1", Kind: randomString(r), Name: randomString(r), UID: "u"}
		if maybe() {
			c, b := r.IntN(2) == 0, r.IntN(2) == 0
			o.Controller, o.BlockOwnerDeletion = &c, &b
		}
		m.OwnerReferences = append(m.OwnerReferences, o)
	}
	for range r.IntN(3) {
		m.Finalizers = append(m.Finalizers, randomString(r))
	}
	for range r.IntN(3) {
		e := metav1.ManagedFieldsEntry{Manager: randomString(r), Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", FieldsType: "FieldsV1"}
		if maybe() {
			ts := metav1.NewTime(time.Unix(r.Int64N(4e9), 0))
			e.Time = &ts
		}
		if maybe() {
			raw, _ := json.Marshal(map[string]any{"f:data": map[string]any{"f:" + randomString(r): map[string]any{}}})
			e.FieldsV1 = &metav1.FieldsV1{}
			e.FieldsV1.SetRawBytes(raw)
		}
		if maybe() {
			e.Subresource = "status"
		}
		m.ManagedFields = append(m.ManagedFields, e)
	}
	return m
}

// randomString mixes plain text with what JSON escapes and multi-byte
// runes.
func randomString(r *rand.Rand) string {
	const alphabet = "abcxyz-./09\"\\\n\té日"
	runes := []rune(alphabet)
	b := make([]rune, r.IntN(12))
	for i := range b {
		b[i] = runes[r.IntN(len(runes))]
	}
	return string(b)
}

func FuzzPartialItem(f *testing.F) {
	f.Add(configMapJSON("a", "1", 2))
	f.Add([]byte(`{"metadata":{"name":"x","labels":{"b":"1","a":"2"},"ownerReferences":[{"controller":true}],"managedFields":[{"time":"2026-11-27T10:00:00Z","fieldsV1":{"f:a":{}}}]}}`))
	f.Add([]byte(`{"metadata":{"generation":-1,"deletionGracePeriodSeconds":0,"creationTimestamp":"2026-11-27T10:00:00.5+01:00"}}`))
	f.Add([]byte(`{"metadata":{"name":"a\u00e9"},"data":[1,2,{"x":null}]}`))
	f.Fuzz(func(t *testing.T, objJSON []byte) {
		checkPartialItem(t, objJSON)
	})
}

func BenchmarkPartialItem(b *testing.B) {
	obj := configMapJSON("bench", "12345", 4)
	b.Run("transcode", func(b *testing.B) {
		for b.Loop() {
			if _, ok := PartialItem(obj); !ok {
				b.Fatal("not answered")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := Default().EncodeItem(partialGVK, obj); err != nil {
				b.Fatal(err)
			}
		}
	})
}

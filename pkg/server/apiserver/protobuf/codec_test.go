package protobuf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
)

var (
	configMapGVK      = corev1.SchemeGroupVersion.WithKind("ConfigMap")
	configMapListGVK  = corev1.SchemeGroupVersion.WithKind("ConfigMapList")
	secretGVK         = corev1.SchemeGroupVersion.WithKind("Secret")
	namespaceGVK      = corev1.SchemeGroupVersion.WithKind("Namespace")
	serviceAccountGVK = corev1.SchemeGroupVersion.WithKind("ServiceAccount")
	coreEventGVK      = corev1.SchemeGroupVersion.WithKind("Event")
	eventsEventGVK    = eventsv1.SchemeGroupVersion.WithKind("Event")
	leaseGVK          = coordinationv1.SchemeGroupVersion.WithKind("Lease")
	deleteOptionsGVK  = corev1.SchemeGroupVersion.WithKind("DeleteOptions")
)

// configMapJSON is a ConfigMap as the server stores it.
func configMapJSON(name, rv string, keys int) []byte {
	data := make(map[string]string, keys)
	for i := range keys {
		data[fmt.Sprintf("key-%02d", i)] = strings.Repeat(fmt.Sprintf("value %d; ", i), 4)
	}
	d, _ := json.Marshal(data)
	return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default",`+
		`"uid":"9d1c1b5e-3d5f-4c1e-9a43-2b1f6f0f7a11","resourceVersion":%q,"generation":1,`+
		`"creationTimestamp":"2026-03-01T12:00:00Z","labels":{"app.kubernetes.io/name":"demo","tier":"backend"},`+
		`"annotations":{"example.com/owner":"team-a"},`+
		`"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"demo","uid":"0b6f8d2c-1111-2222-3333-444455556666","controller":true,"blockOwnerDeletion":true}],`+
		`"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":"2026-03-01T12:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{}},"f:metadata":{"f:labels":{".":{},"f:tier":{}}}}}]},`+
		`"data":%s,"binaryData":{"blob":"AAECAwQ="}}`, name, rv, d)
}

// objectCases are the kinds the round-trip tests cover, as stored JSON.
var objectCases = []struct {
	name string
	gvk  schema.GroupVersionKind
	json string
}{
	{"ConfigMap", configMapGVK, string(configMapJSON("demo", "42", 3))},
	{"Secret", secretGVK, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds","namespace":"default","resourceVersion":"7"},"type":"Opaque","data":{"password":"c2VjcmV0","user":"YWRtaW4="},"immutable":true}`},
	{"Namespace", namespaceGVK, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a","resourceVersion":"3","labels":{"kubernetes.io/metadata.name":"team-a"}},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}`},
	{"ServiceAccount", serviceAccountGVK, `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"builder","namespace":"ci"},"secrets":[{"name":"builder-token"}],"imagePullSecrets":[{"name":"registry"}],"automountServiceAccountToken":false}`},
	{"core Event", coreEventGVK, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"demo.17f0a","namespace":"default","resourceVersion":"99"},` +
		`"involvedObject":{"kind":"Pod","namespace":"default","name":"demo-0","uid":"u-1","apiVersion":"v1","resourceVersion":"12","fieldPath":"spec.containers{app}"},` +
		`"reason":"Pulled","message":"Container image pulled","source":{"component":"kubelet","host":"node-1"},` +
		`"firstTimestamp":"2026-03-01T12:00:00Z","lastTimestamp":"2026-03-01T12:05:00Z","count":3,"type":"Normal",` +
		`"eventTime":"2026-03-01T12:05:00.123456Z","reportingComponent":"kubelet","reportingInstance":"node-1"}`},
	{"events.k8s.io Event", eventsEventGVK, `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"demo.17f0b","namespace":"default"},` +
		`"eventTime":"2026-03-01T12:05:00.654321Z","series":{"count":4,"lastObservedTime":"2026-03-01T12:09:59.000001Z"},` +
		`"reportingController":"example.com/ctrl","reportingInstance":"ctrl-0","action":"Reconcile","reason":"Synced",` +
		`"regarding":{"kind":"ConfigMap","namespace":"default","name":"demo","apiVersion":"v1"},"note":"synced","type":"Normal"}`},
	{"Lease", leaseGVK, `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"leader","namespace":"kube-system","resourceVersion":"1000"},` +
		`"spec":{"holderIdentity":"ctrl-0_5e0c","leaseDurationSeconds":15,"acquireTime":"2026-03-01T12:00:00.000001Z","renewTime":"2026-03-01T12:00:10.123456Z","leaseTransitions":2}}`},
	{"DeleteOptions", deleteOptionsGVK, `{"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0,"propagationPolicy":"Foreground",` +
		`"preconditions":{"uid":"9d1c1b5e-3d5f-4c1e-9a43-2b1f6f0f7a11","resourceVersion":"42"},"dryRun":["All"]}`},
}

// clientProto is client-go's protobuf serializer (kubernetes/scheme).
func clientProto(t testing.TB) runtime.Serializer {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), ContentType)
	if !ok {
		t.Fatal("client-go has no protobuf serializer")
	}
	return info.Serializer
}

// clientEncode encodes obj as client-go's REST client does for a client
// of group version gv with ContentType protobuf.
func clientEncode(t testing.TB, gv schema.GroupVersion, obj runtime.Object) []byte {
	t.Helper()
	enc, err := runtime.NewClientNegotiator(scheme.Codecs.WithoutConversion(), gv).Encoder(ContentType, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runtime.Encode(enc, obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// typedFromJSON decodes stored JSON into the typed object of kind gvk from
// client-go's scheme, with apiVersion and kind set.
func typedFromJSON(t testing.TB, gvk schema.GroupVersionKind, data []byte) runtime.Object {
	t.Helper()
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, obj); err != nil {
		t.Fatal(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj
}

func diff(got, want any) string {
	g, _ := json.MarshalIndent(got, "", " ")
	w, _ := json.MarshalIndent(want, "", " ")
	return fmt.Sprintf("got  %T %s\nwant %T %s", got, g, want, w)
}

func TestEncodeObjectDecodedByClientGo(t *testing.T) {
	c := Default()
	dec := clientProto(t)
	for _, tc := range objectCases {
		t.Run(tc.name, func(t *testing.T) {
			body, err := c.EncodeObject(tc.gvk, []byte(tc.json))
			if err != nil {
				t.Fatal(err)
			}
			got, gotGVK, err := dec.Decode(body, nil, nil)
			if err != nil {
				t.Fatalf("client-go cannot decode: %v", err)
			}
			if *gotGVK != tc.gvk {
				t.Errorf("client-go decoded kind %v, want %v", *gotGVK, tc.gvk)
			}
			want := typedFromJSON(t, tc.gvk, []byte(tc.json))
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("round trip differs:\n%s", diff(got, want))
			}
			// The same typed object encoded by apimachinery's own encoder
			// gives the same bytes.
			if upstream := clientEncode(t, tc.gvk.GroupVersion(), want); !bytes.Equal(body, upstream) {
				t.Errorf("EncodeObject bytes differ from client-go's encoding:\n got  %x\n want %x", body, upstream)
			}
		})
	}
}

func TestDecodeToJSONOfClientGoBodies(t *testing.T) {
	c := Default()
	for _, tc := range objectCases {
		t.Run(tc.name, func(t *testing.T) {
			want := typedFromJSON(t, tc.gvk, []byte(tc.json))
			body := clientEncode(t, tc.gvk.GroupVersion(), want.DeepCopyObject())
			gvk, out, err := c.DecodeToJSON(body)
			if err != nil {
				t.Fatal(err)
			}
			if gvk != tc.gvk {
				t.Errorf("gvk = %v, want %v", gvk, tc.gvk)
			}
			var tm metav1.TypeMeta
			if err := json.Unmarshal(out, &tm); err != nil {
				t.Fatal(err)
			}
			if wantTM := (metav1.TypeMeta{APIVersion: tc.gvk.GroupVersion().String(), Kind: tc.gvk.Kind}); tm != wantTM {
				t.Errorf("JSON type meta = %+v, want %+v", tm, wantTM)
			}
			if got := typedFromJSON(t, tc.gvk, out); !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("round trip differs:\n%s", diff(got, want))
			}
		})
	}
}

// Clients send DeleteOptions under the group version of the resource they
// delete; every such body decodes, registered group or not.
func TestDecodeToJSONDeleteOptionsAnyGroup(t *testing.T) {
	c := Default()
	policy := metav1.DeletePropagationBackground
	grace := int64(30)
	opts := &metav1.DeleteOptions{PropagationPolicy: &policy, GracePeriodSeconds: &grace}
	tests := []struct {
		name string
		body []byte
		want schema.GroupVersionKind
	}{
		{"core", clientEncode(t, corev1.SchemeGroupVersion, opts.DeepCopy()), corev1.SchemeGroupVersion.WithKind("DeleteOptions")},
		{"coordination", clientEncode(t, coordinationv1.SchemeGroupVersion, opts.DeepCopy()), coordinationv1.SchemeGroupVersion.WithKind("DeleteOptions")},
		{"meta", mustEncodeAs(t, c, metav1.SchemeGroupVersion.WithKind("DeleteOptions"), opts.DeepCopy()), metav1.SchemeGroupVersion.WithKind("DeleteOptions")},
		{"custom group", mustEncodeAs(t, c, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "DeleteOptions"}, opts.DeepCopy()),
			schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "DeleteOptions"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gvk, out, err := c.DecodeToJSON(tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if gvk != tc.want {
				t.Errorf("gvk = %v, want %v", gvk, tc.want)
			}
			var got metav1.DeleteOptions
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			want := opts.DeepCopy()
			want.APIVersion, want.Kind = tc.want.GroupVersion().String(), "DeleteOptions"
			if !equality.Semantic.DeepEqual(&got, want) {
				t.Errorf("decoded differs:\n%s", diff(&got, want))
			}
		})
	}
}

// mustEncodeAs encodes obj with an envelope naming gvk, whatever its type.
func mustEncodeAs(t testing.TB, c *Codec, gvk schema.GroupVersionKind, obj runtime.Object) []byte {
	t.Helper()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	b, err := c.encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeToJSONErrors(t *testing.T) {
	c := Default()
	valid, err := c.EncodeObject(configMapGVK, configMapJSON("demo", "1", 2))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body []byte
		want error
	}{
		{"empty", nil, ErrMalformed},
		{"json", []byte(`{"apiVersion":"v1","kind":"ConfigMap"}`), ErrMalformed},
		{"wrong magic", append([]byte("k8s\x01"), valid[4:]...), ErrMalformed},
		{"magic only", []byte("k8s\x00"), ErrMalformed},
		{"truncated envelope", valid[:10], ErrMalformed},
		{"truncated object", valid[:len(valid)-3], ErrMalformed},
		{"no kind", mustEncodeAs(t, c, schema.GroupVersionKind{Version: "v1"}, &corev1.ConfigMap{}), ErrMalformed},
		{"no apiVersion", mustEncodeAs(t, c, schema.GroupVersionKind{Kind: "ConfigMap"}, &corev1.ConfigMap{}), ErrMalformed},
		{"bad apiVersion", mustEncodeAs(t, c, schema.GroupVersionKind{Group: "a/b", Version: "v1", Kind: "ConfigMap"}, &corev1.ConfigMap{}), ErrMalformed},
		{"unknown kind", mustEncodeAs(t, c, schema.GroupVersionKind{Version: "v1", Kind: "Widget"}, &corev1.ConfigMap{}), ErrUnsupportedKind},
		{"unknown group", mustEncodeAs(t, c, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ConfigMap"}, &corev1.ConfigMap{}), ErrUnsupportedKind},
		{"internal version", mustEncodeAs(t, c, schema.GroupVersionKind{Version: runtime.APIVersionInternal, Kind: "WatchEvent"}, &corev1.ConfigMap{}), ErrUnsupportedKind},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gvk, out, err := c.DecodeToJSON(tc.body)
			if !errors.Is(err, tc.want) {
				t.Fatalf("DecodeToJSON = %v, %s, %v; want error %v", gvk, out, err, tc.want)
			}
			if out != nil {
				t.Errorf("output %q returned with an error", out)
			}
		})
	}
}

func TestEncodeList(t *testing.T) {
	c := Default()
	dec := clientProto(t)
	remaining := int64(17)
	items := [][]byte{configMapJSON("a", "10", 1), configMapJSON("b", "11", 2), configMapJSON("c", "12", 0)}
	meta := metav1.ListMeta{ResourceVersion: "12", Continue: "eyJydiI6MTJ9", RemainingItemCount: &remaining}

	wantList := func(items [][]byte, meta metav1.ListMeta) *corev1.ConfigMapList {
		l := &corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}, ListMeta: meta}
		for _, raw := range items {
			var cm corev1.ConfigMap
			if err := json.Unmarshal(raw, &cm); err != nil {
				t.Fatal(err)
			}
			// Items carry no type meta in protobuf.
			cm.TypeMeta = metav1.TypeMeta{}
			l.Items = append(l.Items, cm)
		}
		return l
	}
	tests := []struct {
		name  string
		gvk   schema.GroupVersionKind
		meta  metav1.ListMeta
		items [][]byte
	}{
		{"list kind", configMapListGVK, meta, items},
		{"item kind means its list", configMapGVK, meta, items},
		{"empty", configMapListGVK, metav1.ListMeta{ResourceVersion: "5"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, err := c.EncodeList(tc.gvk, tc.meta, tc.items)
			if err != nil {
				t.Fatal(err)
			}
			got, gotGVK, err := dec.Decode(body, nil, nil)
			if err != nil {
				t.Fatalf("client-go cannot decode: %v", err)
			}
			if *gotGVK != configMapListGVK {
				t.Errorf("kind %v, want %v", *gotGVK, configMapListGVK)
			}
			want := wantList(tc.items, tc.meta)
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("list differs:\n%s", diff(got, want))
			}
			if upstream := clientEncode(t, corev1.SchemeGroupVersion, want); !bytes.Equal(body, upstream) {
				t.Errorf("EncodeList bytes differ from client-go's encoding of the same list")
			}
		})
	}
}

// A metadata-only client (client-go's metadata package, controller-runtime's
// metadata informers) asks for PartialObjectMetadata(List); the full stored
// JSON encodes to it directly.
func TestEncodePartialObjectMetadata(t *testing.T) {
	c := Default()
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, metav1.SchemeGroupVersion)
	if err := metav1.AddMetaToScheme(s); err != nil {
		t.Fatal(err)
	}
	info, _ := runtime.SerializerInfoForMediaType(serializer.NewCodecFactory(s).SupportedMediaTypes(), ContentType)

	raw := configMapJSON("demo", "42", 2)
	var cm corev1.ConfigMap
	if err := json.Unmarshal(raw, &cm); err != nil {
		t.Fatal(err)
	}
	pomGVK := metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")
	pomListGVK := metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList")

	body, err := c.EncodeObject(pomGVK, raw)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := info.Serializer.Decode(body, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: cm.ObjectMeta}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("PartialObjectMetadata differs:\n%s", diff(got, want))
	}

	body, err = c.EncodeList(pomListGVK, metav1.ListMeta{ResourceVersion: "42"}, [][]byte{raw, raw})
	if err != nil {
		t.Fatal(err)
	}
	gotList, _, err := info.Serializer.Decode(body, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	item := metav1.PartialObjectMetadata{ObjectMeta: cm.ObjectMeta}
	wantList := &metav1.PartialObjectMetadataList{
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "42"},
		Items:    []metav1.PartialObjectMetadata{item, item},
	}
	if !equality.Semantic.DeepEqual(gotList, wantList) {
		t.Errorf("PartialObjectMetadataList differs:\n%s", diff(gotList, wantList))
	}
}

func TestEncodeStatus(t *testing.T) {
	c := Default()
	dec := clientProto(t)
	tests := []struct {
		name string
		in   *metav1.Status
		want *metav1.Status
	}{
		{
			"gone",
			&metav1.Status{Status: metav1.StatusFailure, Message: "too old resource version: 5 (90)", Reason: metav1.StatusReasonExpired, Code: 410},
			&metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure, Message: "too old resource version: 5 (90)", Reason: metav1.StatusReasonExpired, Code: 410},
		},
		{
			"not found with details",
			&metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: 404,
				Details: &metav1.StatusDetails{Name: "demo", Kind: "configmaps"}},
			&metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: 404,
				Details: &metav1.StatusDetails{Name: "demo", Kind: "configmaps"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := *tc.in
			body, err := c.EncodeStatus(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if *tc.in != before {
				t.Errorf("EncodeStatus changed its argument")
			}
			got, _, err := dec.Decode(body, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("status differs:\n%s", diff(got, tc.want))
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	c := Default()
	tests := []struct {
		name string
		do   func() error
		want error // nil: any error
	}{
		{"unknown kind", func() error {
			_, err := c.EncodeObject(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, []byte(`{}`))
			return err
		}, ErrUnsupportedKind},
		{"internal version", func() error {
			_, err := c.EncodeObject(schema.GroupVersionKind{Version: runtime.APIVersionInternal, Kind: "WatchEvent"}, []byte(`{}`))
			return err
		}, ErrUnsupportedKind},
		{"bad json", func() error {
			_, err := c.EncodeObject(configMapGVK, []byte(`{"metadata":`))
			return err
		}, nil},
		{"wrong json type", func() error {
			_, err := c.EncodeObject(configMapGVK, []byte(`{"data":["x"]}`))
			return err
		}, nil},
		{"list of a kind without list", func() error {
			_, err := c.EncodeList(deleteOptionsGVK, metav1.ListMeta{}, nil)
			return err
		}, ErrUnsupportedKind},
		{"bad list item", func() error {
			_, err := c.EncodeList(configMapListGVK, metav1.ListMeta{}, [][]byte{configMapJSON("a", "1", 1), []byte(`[`)})
			return err
		}, nil},
		{"nil status", func() error {
			_, err := c.EncodeStatus(nil)
			return err
		}, nil},
		{"bad event type", func() error {
			_, err := c.WatchFrame("Added", []byte("k8s\x00"))
			return err
		}, nil},
		{"event object not enveloped", func() error {
			_, err := c.WatchFrame("ADDED", []byte(`{"kind":"ConfigMap"}`))
			return err
		}, ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestSupports(t *testing.T) {
	c := Default()
	tests := []struct {
		gvk  schema.GroupVersionKind
		want bool
	}{
		{configMapGVK, true},
		{configMapListGVK, true},
		{leaseGVK, true},
		{eventsEventGVK, true},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, true},
		{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, true},
		{deleteOptionsGVK, true},
		{schema.GroupVersionKind{Version: "v1", Kind: "Status"}, true},
		{metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList"), true},
		{schema.GroupVersionKind{Version: "v1", Kind: "Widget"}, false},
		{schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, false},
		{schema.GroupVersionKind{Version: runtime.APIVersionInternal, Kind: "WatchEvent"}, false},
	}
	for _, tc := range tests {
		if got := c.Supports(tc.gvk); got != tc.want {
			t.Errorf("Supports(%v) = %v, want %v", tc.gvk, got, tc.want)
		}
	}

	small, err := NewCodec(coordinationv1.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	for gvk, want := range map[schema.GroupVersionKind]bool{leaseGVK: true, configMapGVK: false, deleteOptionsGVK: true} {
		if got := small.Supports(gvk); got != want {
			t.Errorf("NewCodec(coordination).Supports(%v) = %v, want %v", gvk, got, want)
		}
	}
	if Default() != c {
		t.Error("Default() built twice")
	}
}

// A Codec is shared by every request; run its methods at once under -race.
func TestConcurrentUse(t *testing.T) {
	c := Default()
	items := [][]byte{configMapJSON("a", "1", 2), configMapJSON("b", "2", 2)}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			for range 50 {
				obj, err := c.EncodeObject(configMapGVK, items[0])
				if err == nil {
					_, err = c.WatchFrame("ADDED", obj)
				}
				if err == nil {
					_, _, err = c.DecodeToJSON(obj)
				}
				if err == nil {
					_, err = c.EncodeList(configMapListGVK, metav1.ListMeta{ResourceVersion: "2"}, items)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

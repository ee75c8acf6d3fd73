package apiserver_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
)

const watchListQuery = "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1"

// endBookmark reads a WatchList response to its end and returns the
// initial-events-end bookmark's annotations, decoding JSON or protobuf
// frames.
func endBookmark(t *testing.T, r response) map[string]any {
	t.Helper()
	var objects [][]byte
	if strings.HasPrefix(r.header.Get("Content-Type"), "application/vnd.kubernetes.protobuf") {
		for b := r.body; len(b) >= 4; {
			n := binary.BigEndian.Uint32(b)
			var ev metav1.WatchEvent
			if err := ev.Unmarshal(b[4 : 4+n]); err != nil {
				t.Fatalf("protobuf watch frame: %v", err)
			}
			b = b[4+n:]
			if ev.Type != "BOOKMARK" {
				continue
			}
			_, js, err := protobuf.Default().DecodeToJSON(ev.Object.Raw)
			if err != nil {
				t.Fatalf("bookmark object: %v", err)
			}
			objects = append(objects, js)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(r.body))
		for sc.Scan() {
			var ev struct {
				Type   string
				Object json.RawMessage
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("JSON watch frame %q: %v", sc.Bytes(), err)
			}
			if ev.Type == "BOOKMARK" {
				objects = append(objects, ev.Object)
			}
		}
	}
	for _, o := range objects {
		var obj map[string]any
		if err := json.Unmarshal(o, &obj); err != nil {
			t.Fatal(err)
		}
		ann, _ := meta(obj)["annotations"].(map[string]any)
		if ann["k8s.io/initial-events-end"] == "true" {
			return ann
		}
	}
	t.Fatalf("no initial-events-end bookmark in %d bookmarks", len(objects))
	return nil
}

// TestWatchListBlueprint checks the list blueprint on a WatchList's end
// bookmark, in every format, against the bytes kube-apiserver sends,
// and decodes it as client-go's watch-list clients do (into the list
// type they asked for).
func TestWatchListBlueprint(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces/demo/configmaps", configMap("demo", "a", nil))
	c.must(http.StatusCreated, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", scalerCRD)
	c.must(http.StatusCreated, "POST", scalers, `{"apiVersion":"example.com/v1","kind":"Scaler","metadata":{"name":"s"},"spec":{"replicas":1}}`)
	const (
		cms     = "/api/v1/namespaces/demo/configmaps"
		pb      = "application/vnd.kubernetes.protobuf"
		partial = ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	)
	typed := serializer.NewCodecFactory(clientgoscheme.Scheme).UniversalDeserializer()
	metaScheme := runtime.NewScheme()
	metav1.AddMetaToScheme(metaScheme)
	metaDecoder := serializer.NewCodecFactory(metaScheme).UniversalDeserializer()
	tests := []struct {
		name, path, accept string
		// want is kube-apiserver's blueprint, as it sent it.
		want    string
		decoder runtime.Decoder
		into    runtime.Object
		wantGVK schema.GroupVersionKind
	}{
		{"typed JSON", cms, "application/json", `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":null}` + "\n",
			typed, &corev1.ConfigMapList{}, corev1.SchemeGroupVersion.WithKind("ConfigMapList")},
		{"typed protobuf", cms, pb, "k8s\x00\n\x13\n\x02v1\x12\rConfigMapList\x12\x08\n\x06\n\x00\x12\x00\x1a\x00\x1a\x00\"\x00",
			typed, &corev1.ConfigMapList{}, corev1.SchemeGroupVersion.WithKind("ConfigMapList")},
		{"metadata JSON", cms, "application/json" + partial, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":null}` + "\n",
			metaDecoder, &metav1.PartialObjectMetadataList{}, metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList")},
		{"metadata protobuf of a custom resource", scalers, pb + partial, "k8s\x00\n+\n\x0emeta.k8s.io/v1\x12\x19PartialObjectMetadataList\x12\x08\n\x06\n\x00\x12\x00\x1a\x00\x1a\x00\"\x00",
			metaDecoder, &metav1.PartialObjectMetadataList{}, metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList")},
		{"custom resource JSON", scalers, "application/json", `{"apiVersion":"example.com/v1","items":[],"kind":"ScalerList"}` + "\n",
			unstructured.UnstructuredJSONScheme, &unstructured.UnstructuredList{}, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ScalerList"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("GET", tt.path+watchListQuery, nil, "Accept", tt.accept)
			if r.code != http.StatusOK {
				t.Fatalf("got %d: %s", r.code, r.body)
			}
			enc, _ := endBookmark(t, r)["kubernetes.io/initial-events-list-blueprint"].(string)
			got, err := base64.StdEncoding.DecodeString(enc)
			if err != nil || enc == "" {
				t.Fatalf("blueprint %q: %v", enc, err)
			}
			if string(got) != tt.want {
				t.Errorf("blueprint\n got %q\nwant %q", got, tt.want)
			}
			if err := runtime.DecodeInto(tt.decoder, got, tt.into); err != nil {
				t.Fatalf("decoding the blueprint as client-go does: %v", err)
			}
			if gvk := tt.into.GetObjectKind().GroupVersionKind(); gvk != tt.wantGVK && !(gvk.Empty() && tt.decoder == typed) {
				t.Errorf("blueprint decodes as %v, want %v", gvk, tt.wantGVK)
			}
		})
	}
	t.Run("a watch without sendInitialEvents has no end bookmark", func(t *testing.T) {
		r := c.do("GET", cms+"?watch=1&allowWatchBookmarks=true&timeoutSeconds=1", nil)
		if bytes.Contains(r.body, []byte("initial-events")) {
			t.Errorf("plain watch carries initial-events annotations: %s", r.body)
		}
	})
}

// TestWatchListTable checks that a WatchList is not served as a Table,
// as kube-apiserver refuses: a Table-only Accept is a 406, and a Table
// clause is passed over for the next one. A plain watch still serves
// Tables.
func TestWatchListTable(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces/demo/configmaps", configMap("demo", "a", nil))
	const (
		cms   = "/api/v1/namespaces/demo/configmaps"
		table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	)
	tests := []struct {
		name, query, accept string
		wantCode            int
		wantTable           bool
	}{
		{"watch list, Table only", watchListQuery, table, http.StatusNotAcceptable, false},
		{"watch list, Table then JSON", watchListQuery, table + ", application/json", http.StatusOK, false},
		{"watch list, Table in v1beta1 only", watchListQuery, "application/json;as=Table;v=v1beta1;g=meta.k8s.io", http.StatusNotAcceptable, false},
		{"plain watch, Table", "?watch=1&timeoutSeconds=1", table, http.StatusOK, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("GET", cms+tt.query, nil, "Accept", tt.accept)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if r.code == http.StatusNotAcceptable {
				want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"NotAcceptable","code":406}`
				if got := strings.TrimSpace(string(r.body)); got != want {
					t.Errorf("body\n got %s\nwant %s", got, want)
				}
				return
			}
			if got := bytes.Contains(r.body, []byte(`"kind":"Table"`)); got != tt.wantTable {
				t.Errorf("Table served: %v, want %v: %s", got, tt.wantTable, r.body)
			}
		})
	}
}

// TestListItemTypeMeta checks which list items carry kind and
// apiVersion, as kube-apiserver serves them: not those of a built-in
// kind's list (in JSON or YAML), but a custom resource's and
// PartialObjectMetadata items do; single objects and watch events always
// do.
func TestListItemTypeMeta(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces/demo/configmaps", configMap("demo", "a", map[string]any{"kind": "not type meta"}))
	c.must(http.StatusCreated, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", scalerCRD)
	c.must(http.StatusCreated, "POST", scalers, `{"apiVersion":"example.com/v1","kind":"Scaler","metadata":{"name":"s"},"spec":{"replicas":1}}`)
	const cms = "/api/v1/namespaces/demo/configmaps"
	tests := []struct {
		name, path, accept string
		wantKind           string // of the item; "" for none
	}{
		{"built-in list", cms, "application/json", ""},
		{"built-in list as YAML", cms, "application/yaml", ""},
		{"custom resource list", scalers, "application/json", "Scaler"},
		{"metadata list", cms, "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", "PartialObjectMetadata"},
		{"single object", cms + "/a", "application/json", "ConfigMap"},
		{"watch event", cms + "?watch=1&timeoutSeconds=1", "application/json", "ConfigMap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("GET", tt.path, nil, "Accept", tt.accept)
			if r.code != http.StatusOK {
				t.Fatalf("got %d: %s", r.code, r.body)
			}
			body := r.body
			if tt.accept == "application/yaml" {
				js, err := yaml.YAMLToJSON(body)
				if err != nil {
					t.Fatal(err)
				}
				body = js
			}
			var doc map[string]any
			if err := json.NewDecoder(bytes.NewReader(body)).Decode(&doc); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			item := doc
			if items, ok := doc["items"].([]any); ok {
				item = items[0].(map[string]any)
			} else if o, ok := doc["object"].(map[string]any); ok {
				item = o
			}
			if got := str(item["kind"]); got != tt.wantKind {
				t.Errorf("item kind %q, want %q: %v", got, tt.wantKind, item)
			}
			if has := item["apiVersion"] != nil; has != (tt.wantKind != "") {
				t.Errorf("item apiVersion %v, want present: %v", item["apiVersion"], tt.wantKind != "")
			}
			if data, ok := item["data"].(map[string]any); ok && data["kind"] != "not type meta" {
				t.Errorf("data lost its kind key: %v", data)
			}
		})
	}
}

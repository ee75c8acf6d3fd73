package protobuf

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// configMapServer serves configmaps of namespace "ns" from JSON, speaking
// protobuf through a Codec, as the real server will. Only what the test
// needs.
type configMapServer struct {
	t     *testing.T
	codec *Codec

	mu       sync.Mutex
	rv       int
	objs     map[string][]byte // name -> stored JSON
	requests []string          // "METHOD content-type" of each request with a body
}

const cmPrefix = "/api/v1/namespaces/ns/configmaps"

func (s *configMapServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !strings.HasPrefix(r.Header.Get("Accept"), ContentType) {
		s.t.Errorf("%s %s: Accept %q does not prefer protobuf", r.Method, r.URL, r.Header.Get("Accept"))
	}
	name := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, cmPrefix), "/")
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
	}
	if len(body) > 0 {
		s.requests = append(s.requests, r.Method+" "+r.Header.Get("Content-Type"))
	}
	switch {
	case r.Method == http.MethodPost && name == "":
		gvk, js, err := s.codec.DecodeToJSON(body)
		if err != nil || gvk != configMapGVK {
			s.status(w, apierrors.NewBadRequest("bad body: "+gvk.String()))
			return
		}
		var cm corev1.ConfigMap
		if err := json.Unmarshal(js, &cm); err != nil {
			s.status(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		s.rv++
		cm.Namespace, cm.ResourceVersion = "ns", strconv.Itoa(s.rv)
		stored, _ := json.Marshal(&cm)
		s.objs[cm.Name] = stored
		s.object(w, http.StatusCreated, stored)
	case r.Method == http.MethodGet && name != "":
		stored, ok := s.objs[name]
		if !ok {
			s.status(w, apierrors.NewNotFound(corev1.Resource("configmaps"), name))
			return
		}
		s.object(w, http.StatusOK, stored)
	case r.Method == http.MethodGet && r.URL.Query().Get("watch") == "true":
		s.watch(w)
	case r.Method == http.MethodGet:
		items := s.sorted()
		b, err := s.codec.EncodeList(configMapListGVK, metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}, items)
		if err != nil {
			s.t.Error(err)
			return
		}
		w.Header().Set("Content-Type", ContentType)
		_, _ = w.Write(b)
	case r.Method == http.MethodDelete && name != "":
		gvk, js, err := s.codec.DecodeToJSON(body)
		if err != nil || gvk.Kind != "DeleteOptions" {
			s.status(w, apierrors.NewBadRequest("bad delete options"))
			return
		}
		var opts metav1.DeleteOptions
		if err := json.Unmarshal(js, &opts); err != nil || opts.PropagationPolicy == nil || *opts.PropagationPolicy != metav1.DeletePropagationForeground {
			s.status(w, apierrors.NewBadRequest("delete options lost: "+string(js)))
			return
		}
		delete(s.objs, name)
		s.rv++
		s.status(w, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusSuccess, Code: http.StatusOK}})
	default:
		s.status(w, apierrors.NewMethodNotSupported(corev1.Resource("configmaps"), r.Method))
	}
}

func (s *configMapServer) sorted() [][]byte {
	names := make([]string, 0, len(s.objs))
	for n := range s.objs {
		names = append(names, n)
	}
	slices.Sort(names)
	items := make([][]byte, len(names))
	for i, n := range names {
		items[i] = s.objs[n]
	}
	return items
}

func (s *configMapServer) object(w http.ResponseWriter, code int, stored []byte) {
	b, err := s.codec.EncodeObject(configMapGVK, stored)
	if err != nil {
		s.t.Error(err)
		return
	}
	w.Header().Set("Content-Type", ContentType)
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func (s *configMapServer) status(w http.ResponseWriter, err *apierrors.StatusError) {
	b, encErr := s.codec.EncodeStatus(&err.ErrStatus)
	if encErr != nil {
		s.t.Error(encErr)
		return
	}
	w.Header().Set("Content-Type", ContentType)
	w.WriteHeader(int(err.ErrStatus.Code))
	_, _ = w.Write(b)
}

// watch sends every object as ADDED, a BOOKMARK, and a 410 ERROR, then
// ends the stream.
func (s *configMapServer) watch(w http.ResponseWriter) {
	w.Header().Set("Content-Type", StreamContentType)
	w.WriteHeader(http.StatusOK)
	send := func(typ string, obj []byte, err error) {
		if err == nil {
			obj, err = s.codec.WatchFrame(typ, obj)
		}
		if err != nil {
			s.t.Error(err)
			return
		}
		_, _ = w.Write(obj)
		w.(http.Flusher).Flush()
	}
	for _, stored := range s.sorted() {
		obj, err := s.codec.EncodeObject(configMapGVK, stored)
		send("ADDED", obj, err)
	}
	obj, err := s.codec.EncodeObject(configMapGVK, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"`+strconv.Itoa(s.rv)+`"}}`))
	send("BOOKMARK", obj, err)
	obj, err = s.codec.EncodeStatus(&apierrors.NewResourceExpired("too old resource version").ErrStatus)
	send("ERROR", obj, err)
}

// client-go's typed client with ContentType protobuf against a server that
// uses the Codec: create, get, not found, list, watch, delete.
func TestClientGoOverHTTP(t *testing.T) {
	srv := &configMapServer{t: t, codec: Default(), objs: map[string][]byte{}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cs, err := corev1client.NewForConfig(&rest.Config{
		Host: ts.URL,
		ContentConfig: rest.ContentConfig{
			ContentType:        ContentType,
			AcceptContentTypes: ContentType + ", application/json",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cms := cs.ConfigMaps("ns")

	for _, name := range []string{"b", "a"} {
		in := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "demo"}},
			Data:       map[string]string{"k": "v-" + name},
			BinaryData: map[string][]byte{"bin": {0, 1, 2}},
		}
		out, err := cms.Create(ctx, in, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		if out.Name != name || out.Namespace != "ns" || out.ResourceVersion == "" || out.Data["k"] != "v-"+name || string(out.BinaryData["bin"]) != "\x00\x01\x02" {
			t.Errorf("create %s returned %+v", name, out)
		}
	}

	got, err := cms.Get(ctx, "a", metav1.GetOptions{})
	if err != nil || got.Data["k"] != "v-a" || got.ResourceVersion != "2" {
		t.Errorf("get a = %+v, %v", got, err)
	}
	if _, err := cms.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get missing: %v, want NotFound", err)
	}

	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if list.ResourceVersion != "2" || len(list.Items) != 2 || list.Items[0].Name != "a" || list.Items[1].Data["k"] != "v-b" {
		t.Errorf("list = %+v", list)
	}

	w, err := cms.Watch(ctx, metav1.ListOptions{AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for ev := range w.ResultChan() {
		switch o := ev.Object.(type) {
		case *corev1.ConfigMap:
			seen = append(seen, string(ev.Type)+" "+o.Name+"@"+o.ResourceVersion)
		case *metav1.Status:
			seen = append(seen, string(ev.Type)+" "+strconv.Itoa(int(o.Code)))
		default:
			t.Errorf("watch event %s with %T", ev.Type, ev.Object)
		}
	}
	w.Stop()
	wantSeen := []string{"ADDED a@2", "ADDED b@1", "BOOKMARK @2", "ERROR 410"}
	if !slices.Equal(seen, wantSeen) {
		t.Errorf("watch events %q, want %q", seen, wantSeen)
	}

	policy := metav1.DeletePropagationForeground
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := cms.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}

	srv.mu.Lock()
	defer srv.mu.Unlock()
	wantReqs := []string{"POST " + ContentType, "POST " + ContentType, "DELETE " + ContentType}
	if !slices.Equal(srv.requests, wantReqs) {
		t.Errorf("request bodies %q, want %q", srv.requests, wantReqs)
	}
}

package protobuf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restwatch "k8s.io/client-go/rest/watch"
)

// bookmarkJSON is a BOOKMARK object: apiVersion, kind and
// metadata.resourceVersion, and the annotation a watch list ends with.
const bookmarkJSON = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"77","annotations":{"k8s.io/initial-events-end":"true"}}}`

var goneStatus = &metav1.Status{
	Status:  metav1.StatusFailure,
	Message: "too old resource version: 5 (77)",
	Reason:  metav1.StatusReasonExpired,
	Code:    http.StatusGone,
}

type testEvent struct {
	typ    watch.EventType
	gvk    schema.GroupVersionKind
	json   []byte         // object as stored; nil for ERROR
	status *metav1.Status // ERROR only
}

func watchEvents() []testEvent {
	return []testEvent{
		{typ: watch.Added, gvk: configMapGVK, json: configMapJSON("a", "70", 2)},
		{typ: watch.Modified, gvk: configMapGVK, json: configMapJSON("a", "71", 3)},
		{typ: watch.Added, gvk: configMapGVK, json: configMapJSON("b", "72", 0)},
		{typ: watch.Bookmark, gvk: configMapGVK, json: []byte(bookmarkJSON)},
		{typ: watch.Deleted, gvk: configMapGVK, json: configMapJSON("a", "78", 3)},
		{typ: watch.Error, status: goneStatus},
	}
}

// frame encodes ev with the Codec, as the server does.
func frame(t testing.TB, c *Codec, ev testEvent) []byte {
	t.Helper()
	var obj []byte
	var err error
	if ev.status != nil {
		obj, err = c.EncodeStatus(ev.status)
	} else {
		obj, err = c.EncodeObject(ev.gvk, ev.json)
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.WatchFrame(string(ev.typ), obj)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// wantObject is the typed object a client should get for ev.
func wantObject(t testing.TB, ev testEvent) runtime.Object {
	t.Helper()
	if ev.status != nil {
		s := ev.status.DeepCopy()
		s.APIVersion, s.Kind = "v1", "Status"
		return s
	}
	return typedFromJSON(t, ev.gvk, ev.json)
}

// kubeAPIServerFrame frames ev the way kube-apiserver does for a
// protobuf watch (k8s.io/apiserver pkg/endpoints/handlers, serveWatchHandler
// and watchEncoder.doEncode): the object through the negotiated protobuf
// serializer, the WatchEvent around it through the media type's stream
// serializer (protobuf.RawSerializer), written whole to the media type's
// framer (protobuf.LengthDelimitedFramer).
func kubeAPIServerFrame(t testing.TB, ev testEvent) []byte {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), ContentType)
	if !ok || info.StreamSerializer == nil {
		t.Fatal("no protobuf stream serializer")
	}
	gv := corev1.SchemeGroupVersion
	var embedded bytes.Buffer
	if err := scheme.Codecs.EncoderForVersion(info.Serializer, gv).Encode(wantObject(t, ev), &embedded); err != nil {
		t.Fatal(err)
	}
	outEvent := &metav1.WatchEvent{Type: string(ev.typ), Object: runtime.RawExtension{Raw: embedded.Bytes()}}
	var event bytes.Buffer
	if err := scheme.Codecs.EncoderForVersion(info.StreamSerializer.Serializer, gv).Encode(outEvent, &event); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := info.StreamSerializer.Framer.NewFrameWriter(&out).Write(event.Bytes()); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestWatchFrameMatchesKubeAPIServer(t *testing.T) {
	c := Default()
	for _, ev := range watchEvents() {
		t.Run(string(ev.typ), func(t *testing.T) {
			got := frame(t, c, ev)
			want := kubeAPIServerFrame(t, ev)
			if !bytes.Equal(got, want) {
				t.Fatalf("frame differs from kube-apiserver's:\n got  %x\n want %x", got, want)
			}
			// The facts the bytes show: a 4-byte big-endian length of the
			// rest, then a bare WatchEvent (field 1, type; field 2, object)
			// whose object.raw starts with the "k8s\x00" envelope.
			if n := binary.BigEndian.Uint32(got); int(n) != len(got)-4 {
				t.Errorf("length prefix %d, frame body %d bytes", n, len(got)-4)
			}
			var we metav1.WatchEvent
			if err := we.Unmarshal(got[4:]); err != nil {
				t.Fatalf("frame body is not a bare WatchEvent: %v", err)
			}
			if we.Type != string(ev.typ) || !bytes.HasPrefix(we.Object.Raw, []byte("k8s\x00")) {
				t.Errorf("WatchEvent type %q, object starts %q", we.Type, we.Object.Raw[:min(4, len(we.Object.Raw))])
			}
		})
	}
}

// clientWatchDecoder reads a protobuf watch stream with the machinery
// client-go's REST client uses (rest.Request.newStreamWatcher): the
// negotiated stream decoder, its framer, streaming.NewDecoder and
// rest/watch.NewDecoder.
func clientWatchDecoder(t testing.TB, r io.Reader) *restwatch.Decoder {
	t.Helper()
	negotiator := runtime.NewClientNegotiator(scheme.Codecs.WithoutConversion(), corev1.SchemeGroupVersion)
	objectDecoder, streamingSerializer, framer, err := negotiator.StreamDecoder(ContentType, map[string]string{"stream": "watch"})
	if err != nil {
		t.Fatal(err)
	}
	frameReader := framer.NewFrameReader(io.NopCloser(r))
	return restwatch.NewDecoder(streaming.NewDecoder(frameReader, streamingSerializer), objectDecoder)
}

func TestWatchStreamDecodedByClientGo(t *testing.T) {
	c := Default()
	events := watchEvents()
	var stream bytes.Buffer
	for _, ev := range events {
		stream.Write(frame(t, c, ev))
	}

	dec := clientWatchDecoder(t, &stream)
	for i, want := range events {
		typ, obj, err := dec.Decode()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if typ != want.typ {
			t.Errorf("event %d: type %s, want %s", i, typ, want.typ)
		}
		w := wantObject(t, want)
		// client-go's typed decoder (WithoutConversion) clears apiVersion
		// and kind of typed objects.
		w.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		if !equality.Semantic.DeepEqual(obj, w) {
			t.Errorf("event %d (%s): object differs:\n%s", i, typ, diff(obj, w))
		}
		switch typ {
		case watch.Bookmark:
			cm, ok := obj.(*corev1.ConfigMap)
			if !ok || cm.ResourceVersion != "77" || cm.Annotations["k8s.io/initial-events-end"] != "true" {
				t.Errorf("bookmark object %#v", obj)
			}
		case watch.Error:
			// What reflectors do with an ERROR event's object.
			err := apierrors.FromObject(obj)
			if !apierrors.IsResourceExpired(err) || apierrors.ReasonForError(err) != metav1.StatusReasonExpired {
				t.Errorf("error event: %v is not a 410 Expired", err)
			}
			if s, ok := obj.(*metav1.Status); !ok || s.Code != http.StatusGone {
				t.Errorf("error event object %#v, want a Status with code 410", obj)
			}
		}
	}
	if _, _, err := dec.Decode(); !errors.Is(err, io.EOF) {
		t.Errorf("after the last event: %v, want EOF", err)
	}
}

// One frame written to many watchers is read by each: the bytes are not
// tied to a stream.
func TestWatchFrameShared(t *testing.T) {
	c := Default()
	f := frame(t, c, watchEvents()[0])
	for i := range 3 {
		dec := clientWatchDecoder(t, bytes.NewReader(f))
		typ, obj, err := dec.Decode()
		if err != nil || typ != watch.Added || obj.(*corev1.ConfigMap).Name != "a" {
			t.Fatalf("reader %d: %v %v %v", i, typ, obj, err)
		}
	}
}

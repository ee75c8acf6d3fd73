package client

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

var configMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")

// protoFrame is one frame of a protobuf watch stream carrying obj.
func protoFrame(t testing.TB, typ watch.EventType, obj protoMessage, kind string) []byte {
	t.Helper()
	gvk := configMapGVK
	if kind != "" {
		gvk = gvk.GroupVersion().WithKind(kind)
	}
	raw, err := encodeProtobuf(gvk, obj)
	if err != nil {
		t.Fatal(err)
	}
	ev := metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: raw}}
	b, err := ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// testClient decodes without a server.
func testClient() *Client {
	return &Client{scheme: defaultScheme(), log: slog.New(slog.DiscardHandler)}
}

// FuzzWatchStream feeds arbitrary bytes to the watch stream decoders, in
// both encodings and all three object flavors: they must end with an
// error or io.EOF, never panic, and every event they produce must carry
// an object of the right type.
func FuzzWatchStream(f *testing.F) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "demo", ResourceVersion: "5"}, Data: map[string]string{"k": "v"}}
	st := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old"}
	var stream []byte
	stream = append(stream, protoFrame(f, watch.Added, cm, "")...)
	stream = append(stream, protoFrame(f, watch.Bookmark, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "6"}}, "")...)
	stream = append(stream, protoFrame(f, watch.Error, st, "Status")...)
	f.Add(stream, true)
	f.Add(stream[:len(stream)-3], true)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, true)
	f.Add([]byte{0, 0, 0, 3, 'k', '8', 's'}, true)
	f.Add([]byte(`{"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}}
{"type":"BOOKMARK","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"6"}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","code":410,"reason":"Expired"}}
`), false)
	f.Add([]byte(`{"type":"ADDED","object":[1,2]}`), false)
	f.Add([]byte(`{"type":"NOPE","object":{}}`), false)

	c := testClient()
	targets := []target{
		{flavor: flavorTyped, gvk: configMapGVK},
		{flavor: flavorUnstructured, gvk: configMapGVK},
		{flavor: flavorMetadata, gvk: configMapGVK},
	}
	f.Fuzz(func(t *testing.T, data []byte, proto bool) {
		for _, tg := range targets {
			var events eventReader = newJSONEvents(bytes.NewReader(data))
			if proto {
				events = newProtoEvents(bytes.NewReader(data))
			}
			for {
				raw, err := events.next()
				if err != nil {
					break
				}
				ev, err := c.decodeEvent(tg, raw)
				if err != nil {
					continue
				}
				checkEvent(t, tg, ev)
			}
		}
	})
}

func checkEvent(t *testing.T, tg target, ev watch.Event) {
	t.Helper()
	var ok bool
	switch {
	case ev.Type == watch.Error:
		_, ok = ev.Object.(*metav1.Status)
	case tg.flavor == flavorTyped:
		_, ok = ev.Object.(*corev1.ConfigMap)
	case tg.flavor == flavorUnstructured:
		_, ok = ev.Object.(*unstructured.Unstructured)
	case tg.flavor == flavorMetadata:
		_, ok = ev.Object.(*metav1.PartialObjectMetadata)
	}
	if !ok {
		t.Fatalf("%s event with %T for flavor %d", ev.Type, ev.Object, tg.flavor)
	}
}

// TestStreamWatcher runs whole streams through the watcher: the events
// come out in order, and undecodable bytes end the stream with one ERROR
// event of the client's own.
func TestStreamWatcher(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "demo"}}
	added := protoFrame(t, watch.Added, cm, "")
	tests := []struct {
		name  string
		data  []byte
		proto bool
		want  []string
	}{
		{"clean end", append(bytes.Clone(added), added...), true, []string{"ADDED a", "ADDED a"}},
		{"cut inside a frame ends quietly", append(bytes.Clone(added), added[:7]...), true, []string{"ADDED a"}},
		{"garbage frame", append(bytes.Clone(added), 0, 0, 0, 2, 0xff, 0xff), true,
			[]string{"ADDED a", "ERROR 500 unable to decode an event from the watch stream"}},
		{"oversized frame", []byte{0x7f, 0xff, 0xff, 0xff}, true,
			[]string{"ERROR 500 unable to decode an event from the watch stream"}},
		{"json", []byte(`{"type":"MODIFIED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}}` + "\n"), false,
			[]string{"MODIFIED b"}},
		{"json garbage", []byte(`{"type":"MODIFIED","object":{}}` + "\n}{"), false,
			[]string{"MODIFIED ", "ERROR 500 unable to decode an event from the watch stream"}},
	}
	c := testClient()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events eventReader = newJSONEvents(bytes.NewReader(tt.data))
			if tt.proto {
				events = newProtoEvents(bytes.NewReader(tt.data))
			}
			ctx, cancel := context.WithCancel(t.Context())
			w := &streamWatcher{result: make(chan watch.Event), done: make(chan struct{}), cancel: cancel}
			tg := target{flavor: flavorTyped, gvk: configMapGVK}
			go w.run(ctx, io.NopCloser(nil), events, func(ev rawEvent) (watch.Event, error) { return c.decodeEvent(tg, ev) }, c.log)
			var got []string
			for ev := range w.ResultChan() {
				switch o := ev.Object.(type) {
				case *corev1.ConfigMap:
					got = append(got, string(ev.Type)+" "+o.Name)
				case *metav1.Status:
					msg, _, _ := bytes.Cut([]byte(o.Message), []byte(":"))
					got = append(got, string(ev.Type)+" "+itoa(o.Code)+" "+string(msg))
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("event %d: got %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

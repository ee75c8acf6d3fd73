package client

import (
	"bytes"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// watchFrame encodes an event as a server does: a WatchEvent whose raw
// object is an enveloped protobuf object.
func watchFrame(t testing.TB, typ watch.EventType, apiVersion, kind string, obj []byte) []byte {
	t.Helper()
	unk := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: obj}
	env, err := unk.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ev := metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: append(bytes.Clone(protoMagic), env...)}}
	frame, err := ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return frame
}

func TestParseWatchEvent(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Data: map[string]string{"k": "v"}}
	body, err := cm.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		typ        watch.EventType
		apiVersion string
		kind       string
	}{
		{"core", watch.Added, "v1", "ConfigMap"},
		{"group", watch.Modified, "apps/v1", "Deployment"},
		{"bookmark", watch.Bookmark, "v1", "ConfigMap"},
		{"unknown type", watch.EventType("SOMETHING"), "v1", "ConfigMap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, raw, err := parseWatchEvent(watchFrame(t, tt.typ, tt.apiVersion, tt.kind, body))
			if err != nil {
				t.Fatal(err)
			}
			if typ != tt.typ {
				t.Errorf("type = %q, want %q", typ, tt.typ)
			}
			env, err := openEnvelope(raw)
			if err != nil {
				t.Fatal(err)
			}
			if got := env.kind.gvk.GroupVersion().String(); got != tt.apiVersion || env.kind.gvk.Kind != tt.kind {
				t.Errorf("kind = %s %s, want %s %s", got, env.kind.gvk.Kind, tt.apiVersion, tt.kind)
			}
			if !bytes.Equal(env.raw, body) {
				t.Errorf("raw object differs")
			}
		})
	}
}

func TestEnvelopeSharesKindStrings(t *testing.T) {
	frame := watchFrame(t, watch.Added, "apps/v1", "Deployment", nil)
	var objs [2]metav1.PartialObjectMetadata
	for i := range objs {
		_, raw, err := parseWatchEvent(frame)
		if err != nil {
			t.Fatal(err)
		}
		env, err := openEnvelope(raw)
		if err != nil {
			t.Fatal(err)
		}
		env.setKind(&objs[i])
	}
	if objs[0].APIVersion != "apps/v1" || objs[0].Kind != "Deployment" {
		t.Fatalf("kind = %q %q", objs[0].APIVersion, objs[0].Kind)
	}
	if !samePointerString(objs[0].APIVersion, objs[1].APIVersion) || !samePointerString(objs[0].Kind, objs[1].Kind) {
		t.Error("two objects of one kind hold separate apiVersion/kind strings")
	}
}

func samePointerString(a, b string) bool {
	return unsafe.StringData(a) == unsafe.StringData(b)
}

// FuzzEnvelope checks the in-place readers against the generated
// Unmarshal methods: whatever those accept, the readers read the same.
func FuzzEnvelope(f *testing.F) {
	f.Add(watchFrame(f, watch.Added, "v1", "ConfigMap", []byte{0x0a, 0x02, 0x0a, 0x00}))
	f.Add(watchFrame(f, watch.Error, "v1", "Status", nil))
	f.Add([]byte{0x0a, 0x05, 'A', 'D', 'D', 'E', 'D', 0x12, 0x00})
	f.Fuzz(func(t *testing.T, frame []byte) {
		var ev metav1.WatchEvent
		if ev.Unmarshal(frame) != nil {
			_, _, _ = parseWatchEvent(frame) // must not panic
			return
		}
		typ, raw, err := parseWatchEvent(frame)
		if err != nil {
			t.Fatalf("generated Unmarshal accepts the frame, parseWatchEvent: %v", err)
		}
		if string(typ) != ev.Type || !bytes.Equal(raw, ev.Object.Raw) {
			t.Fatalf("parseWatchEvent = %q %x, want %q %x", typ, raw, ev.Type, ev.Object.Raw)
		}
		if !bytes.HasPrefix(raw, protoMagic) {
			return
		}
		var unk runtime.Unknown
		if unk.Unmarshal(raw[len(protoMagic):]) != nil {
			_, _ = openEnvelope(raw)
			return
		}
		env, err := openEnvelope(raw)
		if err != nil {
			// The reader also parses the apiVersion, which Unmarshal
			// does not.
			return
		}
		if env.kind.gvk.Kind != unk.Kind || !bytes.Equal(env.raw, unk.Raw) {
			t.Fatalf("openEnvelope = %s %x, want %s %x", env.kind.gvk.Kind, env.raw, unk.Kind, unk.Raw)
		}
	})
}

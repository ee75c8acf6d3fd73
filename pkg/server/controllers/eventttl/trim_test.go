package eventttl

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTrimKeepsWhatExpiryReads(t *testing.T) {
	created := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	last := created.Add(10 * time.Minute)
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "ns", Name: "pod.1", UID: "u", ResourceVersion: "7", CreationTimestamp: metav1.NewTime(created)},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "pod"},
		Reason:         "Started", Message: "Started container app", Count: 3,
		Source:         corev1.EventSource{Component: "kubelet"},
		FirstTimestamp: metav1.NewTime(created), LastTimestamp: metav1.NewTime(last),
		Series: &corev1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(last.Add(time.Minute))},
	}
	out, err := Trim(ev.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Event)
	if got.Name != "pod.1" || got.UID != "u" || got.ResourceVersion != "7" {
		t.Errorf("metadata: got %s uid %s rv %s", got.Name, got.UID, got.ResourceVersion)
	}
	if got.Message != "" || got.InvolvedObject.Name != "" || got.Source.Component != "" || got.Count != 0 {
		t.Errorf("kept fields expiry does not read: %+v", got)
	}
	if g, w := lastWrite(got), lastWrite(ev); !g.Equal(w) {
		t.Errorf("lastWrite after Trim: got %v, want %v", g, w)
	}
	if _, err := Trim(&metav1.PartialObjectMetadata{}); err == nil {
		t.Error("Trim of a non-Event: no error")
	}
}

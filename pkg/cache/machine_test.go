package cache

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestMachineNext(t *testing.T) {
	tooLarge := apierrors.NewTimeoutError("Too large resource version", 1)
	tooLarge.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge}}
	tests := []struct {
		name string
		m    machine
		o    outcome
		want machine
	}{
		{"empty streams when WatchList is on",
			machine{stream: true, rv: "9"}, outcome{},
			machine{phase: phaseStreaming, stream: true}},
		{"empty pages when WatchList is off",
			machine{}, outcome{},
			machine{phase: phasePaging}},
		{"stream synced goes on watching from the bookmark",
			machine{phase: phaseStreaming, stream: true}, outcome{result: resSynced, rv: "12"},
			machine{phase: phaseWatching, rv: "12", stream: true}},
		{"stream refused falls back to paging for good",
			machine{phase: phaseStreaming, stream: true}, outcome{result: resFailed, err: errRefused()},
			machine{phase: phasePaging}},
		{"stream broke the protocol falls back for good",
			machine{phase: phaseStreaming, stream: true}, outcome{result: resFailed, err: &streamError{"MODIFIED"}},
			machine{phase: phasePaging}},
		{"stream cut by the network falls back this once",
			machine{phase: phaseStreaming, stream: true}, outcome{result: resFailed, err: errConnRefused()},
			machine{phase: phasePaging, stream: true}},
		{"stream ended early falls back this once",
			machine{phase: phaseStreaming, stream: true}, outcome{result: resFailed, err: errStreamEnded},
			machine{phase: phasePaging, stream: true}},
		{"stream throttled falls back this once",
			machine{phase: phaseStreaming, stream: true}, outcome{result: resFailed, err: apierrors.NewTooManyRequests("slow down", 1)},
			machine{phase: phasePaging, stream: true}},
		{"page with continue lists the next page",
			machine{phase: phasePaging}, outcome{result: resPage, rv: "5", cont: "c1"},
			machine{phase: phasePaging, cont: "c1"}},
		{"last page watches from the list's version",
			machine{phase: phasePaging, cont: "c1"}, outcome{result: resPage, rv: "5"},
			machine{phase: phaseWatching, rv: "5"}},
		{"expired continue lists again at once",
			machine{phase: phasePaging, cont: "c1"}, outcome{result: resFailed, err: errExpired()},
			machine{phase: phasePaging}},
		{"list error backs off to empty",
			machine{phase: phasePaging, stream: true}, outcome{result: resFailed, err: errConnRefused()},
			machine{phase: phaseBackoff, then: phaseEmpty, stream: true}},
		{"list error mid-listing drops the continue token",
			machine{phase: phasePaging, cont: "c1"}, outcome{result: resFailed, err: errConnRefused()},
			machine{phase: phaseBackoff, then: phaseEmpty}},
		{"watch timeout resumes from the last version",
			machine{phase: phaseWatching, rv: "5"}, outcome{result: resEnded, rv: "8"},
			machine{phase: phaseWatching, rv: "8"}},
		{"watch 410 relists without waiting",
			machine{phase: phaseWatching, rv: "5", stream: true}, outcome{result: resFailed, rv: "6", err: errExpired()},
			machine{phase: phaseEmpty, rv: "6", stream: true}},
		{"watch 410 Gone relists",
			machine{phase: phaseWatching, rv: "5"}, outcome{result: resFailed, rv: "5", err: &apierrors.StatusError{ErrStatus: metav1.Status{Code: 410, Reason: metav1.StatusReasonGone}}},
			machine{phase: phaseEmpty, rv: "5"}},
		{"watch from a version the server lacks relists",
			machine{phase: phaseWatching, rv: "5"}, outcome{result: resFailed, rv: "5", err: tooLarge},
			machine{phase: phaseEmpty, rv: "5"}},
		{"watch error backs off, then resumes from the last version",
			machine{phase: phaseWatching, rv: "5"}, outcome{result: resFailed, rv: "7", err: errConnRefused()},
			machine{phase: phaseBackoff, then: phaseWatching, rv: "7"}},
		{"short watch backs off",
			machine{phase: phaseWatching, rv: "5"}, outcome{result: resEnded, rv: "5", short: true},
			machine{phase: phaseBackoff, then: phaseWatching, rv: "5"}},
		{"backoff returns to the watch",
			machine{phase: phaseBackoff, then: phaseWatching, rv: "7"}, outcome{},
			machine{phase: phaseWatching, then: phaseWatching, rv: "7"}},
		{"backoff returns to empty",
			machine{phase: phaseBackoff, then: phaseEmpty, stream: true}, outcome{},
			machine{phase: phaseEmpty, then: phaseEmpty, stream: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.next(tt.o); got != tt.want {
				t.Errorf("next(%+v)\n got %+v\nwant %+v", tt.o, got, tt.want)
			}
		})
	}
}

func TestTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{errConnRefused(), true},
		{errStreamEnded, true},
		{apierrors.NewInternalError(errors.New("decode")), true},
		{apierrors.NewServiceUnavailable("later"), true},
		{apierrors.NewTooManyRequests("later", 1), true},
		{errRefused(), false},
		// About the kind, not the protocol: stream again next time.
		{apierrors.NewForbidden(cmResource, "", errors.New("no")), true},
		{apierrors.NewNotFound(cmResource, ""), true},
		{apierrors.NewInvalid(schema.GroupKind{Kind: "ListOptions"}, "", nil), false},
		{&streamError{"x"}, false},
	}
	for _, tt := range tests {
		if got := transient(tt.err); got != tt.want {
			t.Errorf("transient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

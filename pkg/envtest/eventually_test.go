package envtest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/envtest"
)

func TestWaits(t *testing.T) {
	short := envtest.Within(50 * time.Millisecond)
	tests := []struct {
		name       string
		wait       func(t testing.TB)
		wantFailed bool
		wantMsg    string // a part of the failure message
		minTime    time.Duration
	}{
		{
			name: "Eventually passes once the condition holds",
			wait: func(t testing.TB) {
				n := 0
				envtest.Eventually(t, "three tries", func() error {
					if n++; n < 3 {
						return errors.New("not yet")
					}
					return nil
				}, short)
			},
		},
		{
			name: "Eventually times out with the last error",
			wait: func(t testing.TB) {
				n := 0
				envtest.Eventually(t, "the widget", func() error {
					n++
					if n == 1 {
						return errors.New("first error")
					}
					return errors.New("size is 1, want 2")
				}, short)
			},
			wantFailed: true,
			wantMsg:    "envtest: timed out after 50ms waiting for the widget: size is 1, want 2",
			minTime:    50 * time.Millisecond,
		},
		{
			name: "EventuallyTrue times out naming what it awaited",
			wait: func(t testing.TB) {
				envtest.EventuallyTrue(t, "the gadget", func() bool { return false }, short, envtest.Every(time.Millisecond))
			},
			wantFailed: true,
			wantMsg:    "envtest: timed out after 50ms waiting for the gadget",
			minTime:    50 * time.Millisecond,
		},
		{
			name: "EventuallyTrue passes at once",
			wait: func(t testing.TB) {
				envtest.EventuallyTrue(t, "true", func() bool { return true })
			},
		},
		{
			name: "Consistently holds for its whole duration",
			wait: func(t testing.TB) {
				envtest.Consistently(t, "nothing changes", func() error { return nil }, short)
			},
			minTime: 50 * time.Millisecond,
		},
		{
			name: "Consistently fails at the first error",
			wait: func(t testing.TB) {
				n := 0
				envtest.Consistently(t, "the count", func() error {
					if n++; n == 2 {
						return errors.New("count changed")
					}
					return nil
				}, envtest.Within(time.Hour), envtest.Every(time.Millisecond))
			},
			wantFailed: true,
			wantMsg:    "count changed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			f := runFake(tt.wait)
			took := time.Since(start)
			if f.Failed() != tt.wantFailed {
				t.Fatalf("failed = %v, want %v; messages:\n%s", f.Failed(), tt.wantFailed, f)
			}
			if got := f.String(); !strings.Contains(got, tt.wantMsg) {
				t.Errorf("messages:\n%s\nwant them to contain %q", got, tt.wantMsg)
			}
			if took < tt.minTime {
				t.Errorf("returned after %v, before %v", took, tt.minTime)
			}
			if tt.minTime == 0 && took > 10*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

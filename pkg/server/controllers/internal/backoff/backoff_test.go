package backoff

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	b := New(10*time.Millisecond, 50*time.Millisecond)
	var got []time.Duration
	for range 5 {
		got = append(got, b.Next("ns", "u1", 3))
	}
	want := []time.Duration{10, 20, 40, 50, 50}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("delays %v, want %v ms", got, want)
		}
	}
	if d := b.Next("ns", "u1", 2); d != 10*time.Millisecond {
		t.Errorf("after progress: %v, want the shortest delay", d)
	}
	if d := b.Next("ns", "u2", 2); d != 10*time.Millisecond {
		t.Errorf("a new object of the same name: %v, want the shortest delay", d)
	}
	b.Forget("ns")
	if len(b.waits) != 0 {
		t.Errorf("Forget left %v", b.waits)
	}
}

func TestNewDefaults(t *testing.T) {
	tests := []struct {
		lo, hi           time.Duration
		wantMin, wantMax time.Duration
	}{
		{0, 0, DefaultMin, DefaultMax},
		{time.Second, 0, time.Second, DefaultMax},
		{time.Second, time.Millisecond, time.Second, time.Second},
	}
	for _, tt := range tests {
		b := New(tt.lo, tt.hi)
		if b.min != tt.wantMin || b.max != tt.wantMax {
			t.Errorf("New(%v, %v) = %v..%v, want %v..%v", tt.lo, tt.hi, b.min, b.max, tt.wantMin, tt.wantMax)
		}
	}
}

package slowstart

import (
	"errors"
	"sync/atomic"
	"testing"
)

func TestSlowStart(t *testing.T) {
	tests := []struct {
		name      string
		count     int
		failFrom  int64 // the call number (1-based) from which calls fail; 0 never
		wantDone  int
		wantCalls int64
	}{
		{name: "all succeed", count: 10, wantDone: 10, wantCalls: 10},
		{name: "first fails", count: 10, failFrom: 1, wantDone: 0, wantCalls: 1},
		// Batches 1, 2, 4: the fourth call fails, so the batch of 4 runs
		// and nothing after it.
		{name: "fails in the third batch", count: 10, failFrom: 4, wantDone: 3, wantCalls: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			done, err := Run(make([]struct{}, tt.count), func(struct{}) error {
				if n := calls.Add(1); tt.failFrom > 0 && n >= tt.failFrom {
					return errors.New("refused")
				}
				return nil
			})
			if done != tt.wantDone || calls.Load() != tt.wantCalls || (err != nil) != (tt.failFrom > 0) {
				t.Errorf("Run = %d done, %d calls, err %v; want %d, %d", done, calls.Load(), err, tt.wantDone, tt.wantCalls)
			}
		})
	}
}

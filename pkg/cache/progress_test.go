package cache

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	tests := []struct {
		name     string
		advances []string
		wait     string
		wantDone bool
		wantCur  string
	}{
		{"nothing yet", nil, "5", false, ""},
		{"reached", []string{"3", "5"}, "5", true, "5"},
		{"passed", []string{"9"}, "5", true, "9"},
		{"not yet", []string{"3", "4"}, "5", false, "4"},
		{"never goes back", []string{"7", "2"}, "6", true, "7"},
		{"opaque version ignored", []string{"abc"}, "1", false, ""},
		{"opaque wait returns", nil, "abc", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p progress
			for _, rv := range tt.advances {
				p.advance(rv)
			}
			if got := p.current(); got != tt.wantCur {
				t.Errorf("current() = %q, want %q", got, tt.wantCur)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			err := p.wait(ctx, tt.wait)
			if gotDone := err == nil; gotDone != tt.wantDone {
				t.Errorf("wait(%s) = %v, want done %v", tt.wait, err, tt.wantDone)
			}
			if !tt.wantDone && !errors.Is(err, context.Canceled) {
				t.Errorf("wait error = %v, want context.Canceled", err)
			}
			if len(p.waiters) != 0 {
				t.Errorf("%d waiters left behind", len(p.waiters))
			}
		})
	}
}

func TestProgressWakesWaiters(t *testing.T) {
	var p progress
	done := make(chan error, 2)
	for _, rv := range []string{"10", "20"} {
		go func() { done <- p.wait(context.Background(), rv) }()
	}
	// Wait until both are parked, so advance must wake them.
	for {
		p.mu.Lock()
		n := len(p.waiters)
		p.mu.Unlock()
		if n == 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p.advance("15")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("the waiter for 20 returned at 15")
	default:
	}
	p.advance("20")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

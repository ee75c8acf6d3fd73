package cache

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/client"
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

// TestInformerReadsItsOwnWrite writes through the client and reads the
// write from the informer's store right after waiting for its version.
func TestInformerReadsItsOwnWrite(t *testing.T) {
	c, err := client.New(apiservertest.Start(t).Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lw, err := c.ListerWatcher(corev1.SchemeGroupVersion.WithKind("ConfigMap"), "default")
	if err != nil {
		t.Fatal(err)
	}
	inf := NewInformer[*corev1.ConfigMap](lw, InformerOptions[*corev1.ConfigMap]{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = inf.Run(ctx) }()
	if err := WaitForSync(ctx, inf); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "mine"}, Data: map[string]string{"v": "0"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 20; i++ {
		cm.Data["v"] = string(rune('a' + i))
		if err := c.Update(ctx, cm); err != nil {
			t.Fatal(err)
		}
		wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
		err := inf.WaitForResourceVersion(wctx, cm.ResourceVersion)
		wcancel()
		if err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		got, ok := inf.Lister().Get(types.NamespacedName{Namespace: "default", Name: "mine"}.String())
		if !ok || got.ResourceVersion != cm.ResourceVersion || got.Data["v"] != cm.Data["v"] {
			t.Fatalf("update %d: cache has %v, want resourceVersion %s", i, got, cm.ResourceVersion)
		}
	}
	got, _ := strconv.ParseUint(inf.ResourceVersion(), 10, 64)
	if want, _ := strconv.ParseUint(cm.ResourceVersion, 10, 64); got < want {
		t.Errorf("ResourceVersion() = %d, want at least %d", got, want)
	}
}

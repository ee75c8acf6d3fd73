package garbagecollector

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestAwaitedCRDs(t *testing.T) {
	var a awaitedCRDs
	a.expect("cogs.example.com", true)
	a.expect("gears.example.com", false)
	a.expect("invalid", true) // not plural.group: never awaited
	cogs := schema.GroupResource{Group: "example.com", Resource: "cogs"}
	gears := schema.GroupResource{Group: "example.com", Resource: "gears"}
	steps := []struct {
		served map[schema.GroupResource]bool
		want   bool
	}{
		{nil, false}, // discovery failed
		{map[schema.GroupResource]bool{gears: true}, false},
		{map[schema.GroupResource]bool{cogs: true, gears: true}, false}, // gears still served
		{map[schema.GroupResource]bool{cogs: true}, true},
		{map[schema.GroupResource]bool{}, true}, // cogs was reflected already
	}
	for i, s := range steps {
		if got := a.reflected(s.served); got != s.want {
			t.Errorf("step %d: reflected(%v) = %v, want %v", i, s.served, got, s.want)
		}
	}
	a.expect("cogs.example.com", true)
	a.forget()
	if !a.reflected(nil) {
		t.Error("forget left CRDs awaited")
	}
}

func TestNextRetry(t *testing.T) {
	var delays []time.Duration
	var d, waited time.Duration
	for {
		var ok bool
		if d, ok = nextRetry(d, waited, 30*time.Second); !ok {
			break
		}
		waited += d
		delays = append(delays, d)
	}
	if delays[0] != awaitFirstRetry || delays[len(delays)-1] != awaitMaxRetry || waited > 30*time.Second || waited < 25*time.Second {
		t.Errorf("delays %v add up to %v", delays, waited)
	}
}

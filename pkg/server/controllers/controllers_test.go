package controllers

import (
	"fmt"
	"testing"
)

func TestParseSelection(t *testing.T) {
	tests := []struct {
		in           string
		wantDisabled []string
		wantErr      bool
	}{
		{"*", nil, false},
		{"", []string{Namespace, GarbageCollector, CRDCleanup, EventTTL, EndpointSlice, NodeLifecycle, TaintEviction, NodeAgent, Scheduler, Disruption, PodGC, ReplicaSet, Deployment}, false},
		{"*,-garbagecollector", []string{GarbageCollector}, false},
		{"-eventttl,*", []string{EventTTL}, false},
		{"namespace,crdcleanup", []string{GarbageCollector, EventTTL, EndpointSlice, NodeLifecycle, TaintEviction, NodeAgent, Scheduler, Disruption, PodGC, ReplicaSet, Deployment}, false},
		{"*,-nope", nil, true},
		{"nope", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseSelection(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseSelection(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && fmt.Sprint(got) != fmt.Sprint(tt.wantDisabled) {
			t.Errorf("ParseSelection(%q) = %v, want %v", tt.in, got, tt.wantDisabled)
		}
	}
}

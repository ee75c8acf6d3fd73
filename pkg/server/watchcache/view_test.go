package watchcache_test

import (
	"errors"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// TestView checks that an object's and an event's views are built once
// per version and owner and then shared, rebuilt when the owner (the
// serving resource) changes, and not kept when building fails.
func TestView(t *testing.T) {
	ownerA, ownerB := new(int), new(int)
	boom := errors.New("boom")
	type call struct {
		version string
		owner   any
		fail    bool
		// wantBuild: this call builds; otherwise it returns the view the
		// call numbered same built.
		wantBuild bool
		same      int
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"built once per version", []call{
			{version: "v2", owner: ownerA, wantBuild: true},
			{version: "v2", owner: ownerA, same: 0},
			{version: "v3", owner: ownerA, wantBuild: true},
			{version: "v3", owner: ownerA, same: 2},
			{version: "v2", owner: ownerA, same: 0},
		}},
		{"a new owner rebuilds", []call{
			{version: "v2", owner: ownerA, wantBuild: true},
			{version: "v2", owner: ownerB, wantBuild: true},
			{version: "v2", owner: ownerB, same: 1},
		}},
		{"a failed build is not kept", []call{
			{version: "v2", owner: ownerA, fail: true, wantBuild: true},
			{version: "v2", owner: ownerA, wantBuild: true},
			{version: "v2", owner: ownerA, same: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &watchcache.Object{Name: "o", APIVersion: "v1"}
			ev := &watchcache.Event{Object: o}
			objs := make([]*watchcache.Object, len(tt.calls))
			evs := make([]*watchcache.Event, len(tt.calls))
			for i, c := range tt.calls {
				built := false
				ov, err := o.View(c.version, c.owner, func(in *watchcache.Object) (*watchcache.Object, error) {
					built = true
					if c.fail {
						return nil, boom
					}
					return &watchcache.Object{Name: in.Name, APIVersion: c.version}, nil
				})
				if built != c.wantBuild {
					t.Errorf("object call %d: built %v, want %v", i, built, c.wantBuild)
				}
				if c.fail {
					if !errors.Is(err, boom) {
						t.Errorf("object call %d: error %v, want %v", i, err, boom)
					}
				} else if err != nil || ov.APIVersion != c.version {
					t.Errorf("object call %d: view %+v, %v", i, ov, err)
				}
				objs[i] = ov
				built = false
				evv, err := ev.View(c.version, c.owner, func(in *watchcache.Event) (*watchcache.Event, error) {
					built = true
					if c.fail {
						return nil, boom
					}
					return &watchcache.Event{Object: ov}, nil
				})
				if built != c.wantBuild || (c.fail != (err != nil)) {
					t.Errorf("event call %d: built %v (want %v), error %v", i, built, c.wantBuild, err)
				}
				evs[i] = evv
				if !c.wantBuild && (objs[i] != objs[c.same] || evs[i] != evs[c.same]) {
					t.Errorf("call %d: not the view call %d built", i, c.same)
				}
			}
		})
	}
}

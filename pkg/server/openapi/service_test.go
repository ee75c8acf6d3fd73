package openapi

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// TestLazy checks SetGroupVersion encodes nothing, and a request encodes
// only what its document needs.
func TestLazy(t *testing.T) {
	s := NewService()
	for i := 0; i < 20; i++ {
		s.SetGroupVersion(crdGVK(i).GroupVersion(), []Resource{custom(t, crdGVK(i), "kinds", crdSchema(i))})
	}
	encoded := func() (paths, defs, hashed int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, g := range s.gvs {
			for _, e := range g.paths.enc {
				if e != nil {
					paths++
				}
			}
			if g.hash != "" {
				hashed++
			}
		}
		for _, d := range s.defs {
			for _, e := range d.enc {
				if e != nil {
					defs++
				}
			}
		}
		return
	}
	if p, d, h := encoded(); p+d+h != 0 {
		t.Fatalf("after SetGroupVersion: %d paths and %d definition encodings, %d hashes; want none", p, d, h)
	}
	get(t, s, "/openapi/v3/apis/g3.example.com/v1")
	if p, _, h := encoded(); p != 0 || h != 1 {
		t.Errorf("after one v3 request: %d group-versions' paths kept, %d hashed; want 0 and 1", p, h)
	}
	get(t, s, "/openapi/v2", "Accept", typeV2Proto)
	if p, _, _ := encoded(); p != 20 {
		t.Errorf("after a v2 request: %d group-versions' paths kept, want 20", p)
	}
	// Shared definitions are kept once, and released with their last user.
	s.mu.Lock()
	users := s.defs[defKey{name: meta + "ObjectMeta", schema: commonObjectMeta(t)}]
	s.mu.Unlock()
	if users == nil || users.refs.Load() != 20 {
		t.Fatalf("ObjectMeta definition = %+v, want one shared by 20", users)
	}
	for i := 0; i < 20; i++ {
		s.SetGroupVersion(crdGVK(i).GroupVersion(), nil)
	}
	if len(s.defs) != 0 {
		t.Errorf("%d definitions kept after every group-version went", len(s.defs))
	}
}

func commonObjectMeta(t *testing.T) *spec.Schema {
	_, defs, err := ForCRD(widgetGVK, nil)
	if err != nil {
		t.Fatal(err)
	}
	return defs[meta+"ObjectMeta"]
}

// TestConcurrent changes group-versions while documents are served; run
// with -race.
func TestConcurrent(t *testing.T) {
	s := testService(t)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				gvk := crdGVK(i % 5)
				if i%2 == 0 {
					s.SetGroupVersion(gvk.GroupVersion(), []Resource{custom(t, gvk, "kinds", crdSchema(i))})
				} else {
					s.SetGroupVersion(gvk.GroupVersion(), nil)
				}
			}
		}()
	}
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				for _, p := range []string{"/openapi/v2", "/openapi/v3", "/openapi/v3/api/v1", "/openapi/v3/apis/g1.example.com/v1"} {
					accept := []string{"application/json", typeV2Proto, typeV3Proto}[i%3]
					r := httptest.NewRequest(http.MethodGet, p, nil)
					r.Header.Set("Accept", accept)
					w := httptest.NewRecorder()
					s.ServeHTTP(w, r)
					if w.Code != http.StatusOK && w.Code != http.StatusNotFound && w.Code != http.StatusNotAcceptable {
						t.Errorf("%s: %d %s", p, w.Code, w.Body)
					}
				}
			}
		}()
	}
	wg.Wait()
}

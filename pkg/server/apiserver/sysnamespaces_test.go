package apiserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestImmortalNamespaces checks that default, kube-system and
// kube-public cannot be deleted, with kube-apiserver's Status, while
// other namespaces (kube-node-lease among them) can.
func TestImmortalNamespaces(t *testing.T) {
	c := newClient(t)
	c.createNamespace("mortal")
	tests := []struct {
		name     string
		query    string
		wantCode int
		wantBody string
	}{
		{"default", "", 403, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"default\" is forbidden: this namespace may not be deleted","reason":"Forbidden","details":{"name":"default","kind":"namespaces"},"code":403}`},
		{"kube-system", "", 403, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"kube-system\" is forbidden: this namespace may not be deleted","reason":"Forbidden","details":{"name":"kube-system","kind":"namespaces"},"code":403}`},
		{"kube-public", "?dryRun=All", 403, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \"kube-public\" is forbidden: this namespace may not be deleted","reason":"Forbidden","details":{"name":"kube-public","kind":"namespaces"},"code":403}`},
		{"kube-node-lease", "", 200, ""},
		{"mortal", "", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("DELETE", "/api/v1/namespaces/"+tt.name+tt.query, nil)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if tt.wantBody != "" && strings.TrimSpace(string(r.body)) != tt.wantBody {
				t.Errorf("body:\n got %s\nwant %s", r.body, tt.wantBody)
			}
			got := c.must(http.StatusOK, "GET", "/api/v1/namespaces/"+tt.name, nil)
			deleting := meta(got)["deletionTimestamp"] != nil
			if want := tt.wantCode == 200; deleting != want {
				t.Errorf("deleting = %v, want %v", deleting, want)
			}
		})
	}
}

// TestSystemNamespacesRecreated removes system namespaces from storage
// behind the API's back: the server recreates them at its next check.
func TestSystemNamespacesRecreated(t *testing.T) {
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.SystemNamespaceInterval = 20 * time.Millisecond
	}})
	c := clientFor(t, srv)
	ctx := context.Background()
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		key := "/registry/core/namespaces/" + name
		old, err := srv.Storage.Get(ctx, key)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, _, err := srv.Storage.Delete(ctx, key, 0); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			r := c.do("GET", "/api/v1/namespaces/"+name, nil)
			if r.code == http.StatusOK {
				if uid := meta(r.json(t))["uid"]; uid == "" || strings.Contains(string(old.Value), str(uid)) {
					t.Errorf("%s: recreated with the old uid %v", name, uid)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not recreated: %d %s", name, r.code, r.body)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

package rbac

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// store is a loader over objects a test changes, counting loads.
type store struct {
	mu    sync.Mutex
	objs  Objects
	err   error
	loads atomic.Int64
	// gate, when set, holds each load until it is closed.
	gate chan struct{}
}

func (s *store) set(o Objects) {
	s.mu.Lock()
	s.objs = o
	s.mu.Unlock()
}

func (s *store) load(ctx context.Context) (Objects, error) {
	s.mu.Lock()
	o, err, gate := s.objs, s.err, s.gate
	s.mu.Unlock()
	// Counted once the objects are read, so a test seeing the count
	// knows what this load returns.
	s.loads.Add(1)
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return Objects{}, ctx.Err()
		}
	}
	return o, err
}

// waitLoad returns once a load of s has begun.
func waitLoad(s *store) {
	for s.loads.Load() == 0 {
		runtime.Gosched()
	}
}

// granting returns objects where user may get pods cluster-wide.
func granting(user string) Objects {
	return Objects{
		ClusterRoles:        []rbacv1.ClusterRole{clusterRole("pod-reader", rule("get", "-", "pods", ""))},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{clusterBinding("readers", "pod-reader", "User:"+user, "Group:readers")},
	}
}

func decide(t *testing.T, a *Authorizer, at authorizer.Attributes) authorizer.Decision {
	t.Helper()
	d, _, err := a.Authorize(context.Background(), at)
	if err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	return d
}

func TestAuthorizerDecisions(t *testing.T) {
	s := &store{objs: world()}
	a := NewAuthorizer(s.load)
	tests := []struct {
		name       string
		at         authorizer.Attributes
		want       authorizer.Decision
		wantReason string
	}{
		{"system:masters without any binding", as(res("delete", "", "nodes", "n", ""), "root", "system:masters"), authorizer.Allow, ""},
		{"system:masters paths", as(path("put", "/x"), "root", "other", "system:masters"), authorizer.Allow, ""},
		{"rbac allow", as(res("get", "", "nodes", "n", ""), "nina"), authorizer.Allow,
			`RBAC: allowed by ClusterRoleBinding "nodes" of ClusterRole "node-reader" to User "nina"`},
		{"no opinion, never deny", as(res("delete", "", "nodes", "n", ""), "nina"), authorizer.NoOpinion, ""},
		{"resolution errors in the reason only", as(res("get", "", "pods", "p", ""), "carol"), authorizer.NoOpinion,
			`RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // decided, then cached
				d, reason, err := a.Authorize(context.Background(), tt.at)
				if d != tt.want || reason != tt.wantReason || err != nil {
					t.Errorf("Authorize = %v, %q, %v; want %v, %q, nil", d, reason, err, tt.want, tt.wantReason)
				}
			}
		})
	}
	if got := s.loads.Load(); got != 1 {
		t.Errorf("loads = %d, want 1", got)
	}
}

func TestAuthorizerCachesUntilInvalidate(t *testing.T) {
	s := &store{objs: granting("alice")}
	a := NewAuthorizer(s.load)
	at := as(res("get", "", "pods", "p", "ns"), "alice")
	if d := decide(t, a, at); d != authorizer.Allow {
		t.Fatalf("before: %v, want Allow", d)
	}
	s.set(granting("bob"))
	if d := decide(t, a, at); d != authorizer.Allow {
		t.Errorf("without Invalidate the policy changed: %v", d)
	}
	a.Invalidate()
	if d := decide(t, a, at); d != authorizer.NoOpinion {
		t.Errorf("after Invalidate: %v, want NoOpinion", d)
	}
	if d := decide(t, a, as(at, "bob")); d != authorizer.Allow {
		t.Errorf("bob after Invalidate: %v, want Allow", d)
	}
	if got := s.loads.Load(); got != 2 {
		t.Errorf("loads = %d, want 2", got)
	}
}

// A cached decision is for the exact user and request: the same name
// with other groups, another uid, or another attribute is decided anew.
func TestAuthorizerCacheKey(t *testing.T) {
	s := &store{objs: granting("nobody-in-particular")}
	a := NewAuthorizer(s.load)
	base := as(res("get", "", "pods", "p", "ns"), "alice", "readers")
	if d := decide(t, a, base); d != authorizer.Allow {
		t.Fatalf("with group: %v", d)
	}
	variants := map[string]authorizer.Attributes{
		"no groups":          as(base, "alice"),
		"groups split":       as(base, "alice", "read", "ers"),
		"other groups":       as(base, "alice", "writers"),
		"other verb":         func() authorizer.Attributes { c := base; c.Verb = "list"; return c }(),
		"other subresource":  func() authorizer.Attributes { c := base; c.Subresource = "log"; return c }(),
		"other group":        func() authorizer.Attributes { c := base; c.APIGroup = "apps"; return c }(),
		"other resource":     func() authorizer.Attributes { c := base; c.Resource = "secrets"; return c }(),
		"non-resource":       func() authorizer.Attributes { c := base; c.ResourceRequest = false; return c }(),
		"groups joined":      as(base, "alice", "read\x00ers"),
		"groups with digits": as(base, "alice", "7:readers"),
	}
	for name, at := range variants {
		if d := decide(t, a, at); d != authorizer.NoOpinion {
			t.Errorf("%s: %v, want NoOpinion", name, d)
		}
	}
	uid := base
	uid.User.UID = "other"
	if d := decide(t, a, uid); d != authorizer.Allow {
		t.Errorf("other uid: %v, want Allow", d)
	}
	if n := a.current.Load().cache.len(); n != len(variants)+2 {
		t.Errorf("cache holds %d decisions, want %d", n, len(variants)+2)
	}
}

func TestAuthorizerCacheBounded(t *testing.T) {
	s := &store{objs: world()}
	a := NewAuthorizer(s.load)
	for i := range cacheSize + 10 {
		decide(t, a, as(res("get", "", "pods", fmt.Sprint(i), "dev"), "bob"))
	}
	if n := a.current.Load().cache.len(); n > cacheSize || n == 0 {
		t.Errorf("cache holds %d decisions, want 1..%d", n, cacheSize)
	}
}

// A load under way when Invalidate is called serves its caller but is
// not kept: the next call loads again.
func TestAuthorizerInvalidateDuringLoad(t *testing.T) {
	gate := make(chan struct{})
	s := &store{objs: granting("alice"), gate: gate}
	a := NewAuthorizer(s.load)
	at := as(res("get", "", "pods", "p", "ns"), "alice")
	first := make(chan authorizer.Decision)
	go func() {
		d, _, _ := a.Authorize(context.Background(), at)
		first <- d
	}()
	waitLoad(s)
	s.mu.Lock()
	s.objs, s.gate = granting("bob"), nil
	s.mu.Unlock()
	a.Invalidate()
	close(gate)
	if d := <-first; d != authorizer.Allow {
		t.Errorf("the call that began before Invalidate: %v, want Allow (the objects it loaded)", d)
	}
	if d := decide(t, a, at); d != authorizer.NoOpinion {
		t.Errorf("after Invalidate the stale load was kept: %v", d)
	}
	if got := s.loads.Load(); got != 2 {
		t.Errorf("loads = %d, want 2", got)
	}
}

func TestAuthorizerLoadError(t *testing.T) {
	boom := errors.New("store unavailable")
	s := &store{err: boom}
	a := NewAuthorizer(s.load)
	at := as(res("get", "", "pods", "p", "ns"), "alice")
	d, _, err := a.Authorize(context.Background(), at)
	var le *LoadError
	if d != authorizer.NoOpinion || !errors.As(err, &le) || !errors.Is(err, boom) {
		t.Errorf("Authorize = %v, %v; want NoOpinion and a *LoadError", d, err)
	}
	if _, err := a.RulesFor(context.Background(), at.User, ""); !errors.Is(err, boom) {
		t.Errorf("RulesFor error = %v", err)
	}
	if d, _, err := a.Authorize(context.Background(), as(at, "root", "system:masters")); d != authorizer.Allow || err != nil {
		t.Errorf("system:masters without a policy: %v, %v", d, err)
	}
	// Failures are not kept: the next call tries again.
	s.mu.Lock()
	s.objs, s.err = granting("alice"), nil
	s.mu.Unlock()
	if d := decide(t, a, at); d != authorizer.Allow {
		t.Errorf("after the store recovered: %v", d)
	}
}

func TestAuthorizerWaitHonoursContext(t *testing.T) {
	gate := make(chan struct{})
	defer close(gate)
	s := &store{objs: world(), gate: gate}
	a := NewAuthorizer(s.load)
	go func() { _, _, _ = a.Authorize(context.Background(), as(res("get", "", "pods", "", ""), "x")) }()
	waitLoad(s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := a.Authorize(ctx, as(res("get", "", "pods", "", ""), "y"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func TestAuthorizerRulesFor(t *testing.T) {
	s := &store{objs: world()}
	a := NewAuthorizer(s.load)
	got, err := a.RulesFor(context.Background(), authenticationv1.UserInfo{Username: "bob"}, "dev")
	want, _ := NewPolicy(world()).RulesFor(authenticationv1.UserInfo{Username: "bob"}, "dev")
	if err != nil || len(got) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("RulesFor = %v, %v; want %v", got, err, want)
	}
	// system:masters gets only what bindings give it, as in kube.
	got, _ = a.RulesFor(context.Background(), authenticationv1.UserInfo{Username: "x", Groups: []string{"system:masters"}}, "")
	if len(got) != 2 {
		t.Errorf("system:masters rules = %v, want cluster-admin's two", got)
	}
}

// Decisions, reloads and Invalidate run together; run with -race. Once
// quiet, the decision is the last objects'.
func TestAuthorizerConcurrent(t *testing.T) {
	s := &store{objs: granting("alice")}
	a := NewAuthorizer(s.load)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				at := as(res("get", "", "pods", fmt.Sprint(i%50), "ns"), []string{"alice", "bob"}[(g+i)%2])
				if _, _, err := a.Authorize(context.Background(), at); err != nil {
					t.Error(err)
					return
				}
				if _, err := a.RulesFor(context.Background(), at.User, "ns"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 200 {
		s.set(granting([]string{"alice", "bob"}[i%2]))
		a.Invalidate()
	}
	close(stop)
	wg.Wait()
	// The last set granted bob.
	if d := decide(t, a, as(res("get", "", "pods", "p", "ns"), "bob")); d != authorizer.Allow {
		t.Errorf("bob: %v, want Allow", d)
	}
	if d := decide(t, a, as(res("get", "", "pods", "p", "ns"), "alice")); d != authorizer.NoOpinion {
		t.Errorf("alice: %v, want NoOpinion", d)
	}
}

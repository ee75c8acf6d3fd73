package rbac

import (
	"context"
	"sync/atomic"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// Authorizer is the authorizer the server runs: members of
// system:masters are allowed, everyone else is decided by the RBAC
// policy. The policy is loaded when first needed and kept until
// Invalidate; the decisions made under it are cached.
type Authorizer struct {
	load func(ctx context.Context) (Objects, error)

	// generation counts Invalidate calls; a state built from a load
	// begun at an older generation is never used as current.
	generation atomic.Uint64
	current    atomic.Pointer[state]
	// loading admits one load at a time, so a burst of requests after
	// Invalidate loads the objects once.
	loading chan struct{}
}

// state is a policy and the decisions made under it.
type state struct {
	generation uint64
	policy     *Policy
	cache      *decisionCache
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// NewAuthorizer returns an Authorizer deciding by the RBAC objects load
// returns. load is called when a decision needs a policy and there is
// none, or Invalidate was called since the last load.
func NewAuthorizer(load func(ctx context.Context) (Objects, error)) *Authorizer {
	return &Authorizer{load: load, loading: make(chan struct{}, 1)}
}

// Invalidate says the RBAC objects changed: the next decision loads
// them again, and decisions cached until now are dropped. A load under
// way when Invalidate is called serves only the callers already waiting
// for it.
func (a *Authorizer) Invalidate() {
	a.generation.Add(1)
}

// Authorize decides at. It allows members of system:masters with an
// empty reason; otherwise it answers Allow or NoOpinion (never Deny)
// with the reason Policy.Authorize gives. err is set only when the
// policy could not be loaded (a *LoadError), and the answer is then
// NoOpinion.
func (a *Authorizer) Authorize(ctx context.Context, at authorizer.Attributes) (authorizer.Decision, string, error) {
	if authorizer.IsPrivileged(at.User) {
		return authorizer.Allow, "", nil
	}
	s, err := a.state(ctx)
	if err != nil {
		return authorizer.NoOpinion, "", err
	}
	k := keyOf(&at)
	d, ok := s.cache.get(k)
	if !ok {
		// Resolution errors are in the reason; kube's authorizer does
		// not report them as an error either.
		d.allowed, d.reason, _ = s.policy.Authorize(at)
		s.cache.put(k, d)
	}
	if d.allowed {
		return authorizer.Allow, d.reason, nil
	}
	return authorizer.NoOpinion, d.reason, nil
}

// RulesFor lists the rules u holds in namespace and cluster-wide, as
// Policy.RulesFor does. It does not add the rules system:masters
// implies: kube's rule resolution does not either.
func (a *Authorizer) RulesFor(ctx context.Context, u authenticationv1.UserInfo, namespace string) ([]rbacv1.PolicyRule, error) {
	s, err := a.state(ctx)
	if err != nil {
		return nil, err
	}
	return s.policy.RulesFor(u, namespace)
}

// Policy returns the current policy, loading it if needed.
func (a *Authorizer) Policy(ctx context.Context) (*Policy, error) {
	s, err := a.state(ctx)
	if err != nil {
		return nil, err
	}
	return s.policy, nil
}

// state returns the current state, loading the objects when there is
// none or it predates the last Invalidate.
func (a *Authorizer) state(ctx context.Context) (*state, error) {
	if s := a.current.Load(); s != nil && s.generation == a.generation.Load() {
		return s, nil
	}
	select {
	case a.loading <- struct{}{}:
	case <-ctx.Done():
		return nil, &LoadError{Err: ctx.Err()}
	}
	defer func() { <-a.loading }()
	// Another caller may have loaded while this one waited.
	gen := a.generation.Load()
	if s := a.current.Load(); s != nil && s.generation == gen {
		return s, nil
	}
	objs, err := a.load(ctx)
	if err != nil {
		return nil, &LoadError{Err: err}
	}
	s := &state{generation: gen, policy: NewPolicy(objs), cache: newDecisionCache()}
	// Were Invalidate called during the load, the objects may be stale:
	// they serve this call, which began before, but are not installed.
	// (Invalidate between this check and the store is caught by the
	// generation stamped on s.)
	if a.generation.Load() == gen {
		a.current.Store(s)
	}
	return s, nil
}

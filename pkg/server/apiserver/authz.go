package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/filters"
	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// Authorization modes, as kube-apiserver's --authorization-mode names them.
const (
	// AuthorizationRBAC decides by Roles, ClusterRoles and their bindings.
	AuthorizationRBAC = "RBAC"
	// AuthorizationAlwaysAllow lets every authenticated request through.
	AuthorizationAlwaysAllow = "AlwaysAllow"
)

// rbacGroup is the API group of the objects the RBAC authorizer reads.
const rbacGroup = rbacv1.GroupName

// newAuthorizer returns the authorizer for cfg's mode: RBAC over the
// objects load reads unless the mode says otherwise or there is no
// authentication to say who is asking. rb is the RBAC authorizer, nil in
// the other modes.
func newAuthorizer(cfg Config, load func(context.Context) (rbac.Objects, error)) (az authorizer.Authorizer, rb *rbac.Authorizer, err error) {
	switch {
	case cfg.Authenticator == nil || cfg.Authorization == AuthorizationAlwaysAllow:
		return alwaysAllow{}, nil, nil
	case cfg.Authorization == "" || cfg.Authorization == AuthorizationRBAC:
		rb = rbac.NewAuthorizer(load)
		return rb, rb, nil
	}
	return nil, nil, fmt.Errorf("apiserver: unknown authorization mode %q (want %s or %s)", cfg.Authorization, AuthorizationRBAC, AuthorizationAlwaysAllow)
}

// builtinAuthorization is what the RBAC and access review kinds need of
// the authorizer; none in AlwaysAllow mode.
func builtinAuthorization(rb *rbac.Authorizer, roles registry.RoleGetter) registry.BuiltinOptions {
	if rb == nil {
		return registry.BuiltinOptions{}
	}
	return registry.BuiltinOptions{Authorizer: rb, Rules: rb, Roles: roles}
}

// cachedRoles reads the roles bindings refer to from the watch cache.
type cachedRoles struct{ s *Server }

func (c *cachedRoles) RoleRules(ctx context.Context, namespace, name string) ([]rbacv1.PolicyRule, bool, error) {
	resource := "clusterroles"
	if namespace != "" {
		resource = "roles"
	}
	res, err := c.s.rbacResource(resource)
	if err != nil {
		return nil, false, err
	}
	var role struct {
		Rules []rbacv1.PolicyRule `json:"rules"`
	}
	found, err := c.s.cachedObject(res, namespace, name, &role)
	return role.Rules, found, err
}

// alwaysAllow is the AlwaysAllow mode.
type alwaysAllow struct{}

func (alwaysAllow) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.Allow, "", nil
}

// loadRBAC reads every RBAC object from the watch cache once it holds
// every acknowledged write, so a policy loaded after a binding was
// written includes it.
func (s *Server) loadRBAC(ctx context.Context) (rbac.Objects, error) {
	if err := s.cache.WaitFresh(ctx); err != nil {
		return rbac.Objects{}, err
	}
	var o rbac.Objects
	err := decodeAll(s.cache, "clusterroles", &o.ClusterRoles)
	if err == nil {
		err = decodeAll(s.cache, "clusterrolebindings", &o.ClusterRoleBindings)
	}
	if err == nil {
		err = decodeAll(s.cache, "roles", &o.Roles)
	}
	if err == nil {
		err = decodeAll(s.cache, "rolebindings", &o.RoleBindings)
	}
	return o, err
}

// decodeAll decodes every cached object of an RBAC resource into out.
func decodeAll[T any](cache *watchcache.Store, resource string, out *[]T) error {
	c, ok := cache.Cache(schema.GroupResource{Group: rbacGroup, Resource: resource})
	if !ok {
		return nil
	}
	items := c.List(watchcache.ListOptions{}).Items
	*out = make([]T, len(items))
	for i, o := range items {
		if err := json.Unmarshal(o.Served(), &(*out)[i]); err != nil {
			return fmt.Errorf("apiserver: cached %s %s: %w", resource, o.Name, err)
		}
	}
	return nil
}

// rbacChanged is the cache's event hook for RBAC objects: the next
// decision reloads the policy.
func (s *Server) rbacChanged(gr schema.GroupResource) {
	if gr.Group == rbacGroup && s.rbac != nil {
		s.rbac.Invalidate()
	}
}

// authorize runs impersonation and authorization on an authenticated
// request, in kube-apiserver's order. It returns the request as the
// user it acts for, or answers the refusal and reports false.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	r, refused, reason, err := filters.Impersonate(r, s.authz)
	switch {
	case err != nil:
		filters.ImpersonationFailed(w, r, err)
		return r, false
	case refused != nil:
		writeStatus(w, filters.Forbidden(*refused, reason))
		return r, false
	}
	if st := filters.Authorize(r, s.authz); st != nil {
		writeStatus(w, st)
		return r, false
	}
	return r, true
}

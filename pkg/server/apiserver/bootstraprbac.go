package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/server/rbac/bootstrap"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// rbacBootstrapTimeout is how long kube-apiserver's RBAC post-start hook
// keeps retrying before the server gives up starting.
const rbacBootstrapTimeout = 30 * time.Second

// rbacFieldManager records the default policy's writes.
const rbacFieldManager = "setpoint"

// bootstrapRBAC brings the default roles and bindings up to date, as
// kube-apiserver's RBAC post-start hook does before the server reports
// ready: every pass carries legacy objects over, then reconciles each
// default object; a failed pass is retried every second.
func (s *Server) bootstrapRBAC(ctx context.Context) error {
	if s.rbac == nil {
		return nil
	}
	// The default policy is written as the server itself, which the
	// escalation checks let grant anything.
	ctx = user.WithInfo(ctx, credentials.LoopbackUser)
	deadline := time.Now().Add(rbacBootstrapTimeout)
	for {
		start := time.Now()
		err := s.reconcileRBAC(ctx)
		if err == nil {
			s.log.Debug("default RBAC policy reconciled", "took", time.Since(start))
		}
		if err == nil || ctx.Err() != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("apiserver: default RBAC policy: %w", err)
		}
		s.log.Warn("cannot write the default RBAC policy, retrying", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

// rbacResource finds an RBAC resource in the registry.
func (s *Server) rbacResource(resource string) (*registry.Resource, error) {
	res, ok := s.reg.Get(schema.GroupVersionResource{Group: rbacGroup, Version: "v1", Resource: resource})
	if !ok {
		return nil, fmt.Errorf("apiserver: %s are not served", resource)
	}
	return res, nil
}

// reconcileRBAC is one pass over the default policy. Objects of one kind
// are written concurrently: a new cluster writes over a hundred, and
// storage commits concurrent writes together.
func (s *Server) reconcileRBAC(ctx context.Context) error {
	if err := s.cache.WaitFresh(ctx); err != nil {
		return err
	}
	p := bootstrap.Default()
	w := rbacWriter{s: s}
	var err error
	if w.clusterRoles, err = s.rbacResource("clusterroles"); err != nil {
		return err
	}
	if w.clusterRoleBindings, err = s.rbacResource("clusterrolebindings"); err != nil {
		return err
	}
	if w.roles, err = s.rbacResource("roles"); err != nil {
		return err
	}
	if w.roleBindings, err = s.rbacResource("rolebindings"); err != nil {
		return err
	}
	// The kinds are independent: a binding may name a role written a
	// moment later, as kube's own writes allow.
	phases := []func() error{
		func() error {
			return each(p.ClusterRoles, func(want rbacv1.ClusterRole) error {
				var cur *rbacv1.ClusterRole
				if err := w.get(w.clusterRoles, "", want.Name, &cur); err != nil {
					return err
				}
				r := bootstrap.ReconcileClusterRole(cur, &want)
				return w.write(ctx, w.clusterRoles, r.Write(), r.Operation, r.Object, "")
			})
		},
		func() error {
			return each(p.ClusterRoleBindings, func(want rbacv1.ClusterRoleBinding) error {
				var cur *rbacv1.ClusterRoleBinding
				if err := w.get(w.clusterRoleBindings, "", want.Name, &cur); err != nil {
					return err
				}
				r := bootstrap.ReconcileClusterRoleBinding(cur, &want)
				uid := ""
				if cur != nil {
					uid = string(cur.UID)
				}
				return w.write(ctx, w.clusterRoleBindings, r.Write(), r.Operation, r.Object, uid)
			})
		},
		func() error {
			return each(p.Roles, func(want rbacv1.Role) error {
				var cur *rbacv1.Role
				if err := w.get(w.roles, want.Namespace, want.Name, &cur); err != nil {
					return err
				}
				r := bootstrap.ReconcileRole(cur, &want)
				return w.write(ctx, w.roles, r.Write(), r.Operation, r.Object, "")
			})
		},
		func() error {
			return each(p.RoleBindings, func(want rbacv1.RoleBinding) error {
				var cur *rbacv1.RoleBinding
				if err := w.get(w.roleBindings, want.Namespace, want.Name, &cur); err != nil {
					return err
				}
				r := bootstrap.ReconcileRoleBinding(cur, &want)
				uid := ""
				if cur != nil {
					uid = string(cur.UID)
				}
				return w.write(ctx, w.roleBindings, r.Write(), r.Operation, r.Object, uid)
			})
		},
	}
	errs := []error{w.migrate(ctx), each(phases, func(phase func() error) error { return phase() })}
	return errors.Join(errs...)
}

// each runs f on every item, at most 128 at once, and joins the errors:
// storage commits concurrent writes together, so a new cluster's default
// policy takes a few commits rather than one a write.
func each[T any](items []T, f func(T) error) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	sem := make(chan struct{}, 128)
	for _, it := range items {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := f(it); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// rbacWriter reads and writes RBAC objects for the bootstrap pass.
type rbacWriter struct {
	s                                                      *Server
	clusterRoles, clusterRoleBindings, roles, roleBindings *registry.Resource
}

// get decodes the cached object into *out, or leaves *out nil when there
// is none. The pass starts from a fresh cache, and every write it makes
// is its own.
func (w rbacWriter) get(res *registry.Resource, ns, name string, out any) error {
	_, err := w.s.cachedObject(res, ns, name, out)
	return err
}

// cachedObject decodes the cached object ns/name of res into out and
// reports whether there is one.
func (s *Server) cachedObject(res *registry.Resource, ns, name string, out any) (bool, error) {
	c, ok := s.cache.Cache(res.StorageResource())
	if !ok {
		return false, fmt.Errorf("apiserver: no cache for %s", res.GroupResource())
	}
	o, _ := c.Get(res.Key(ns, name))
	if o == nil {
		return false, nil
	}
	if err := json.Unmarshal(o.Served(), out); err != nil {
		return false, fmt.Errorf("apiserver: cached %s %s: %w", res.GroupResource(), name, err)
	}
	return true, nil
}

// write performs op for obj: create it, update the stored object to it,
// or replace a binding whose roleRef changed (delete with the stored
// uid as precondition, then create).
func (w rbacWriter) write(ctx context.Context, res *registry.Resource, needed bool, op bootstrap.Operation, obj any, uid string) error {
	if !needed {
		return nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(rbacv1.SchemeGroupVersion.String())
	u.SetKind(res.Kind)
	ns, name := u.GetNamespace(), u.GetName()
	switch op {
	case bootstrap.OpCreate:
		return w.create(ctx, res, u)
	case bootstrap.OpUpdate:
		_, err := w.s.objects.Update(ctx, res, ns, name, func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			u.SetResourceVersion(cur.GetResourceVersion())
			return u, nil
		}, generic.UpdateOptions{FieldManager: rbacFieldManager})
		return err
	case bootstrap.OpRecreate:
		if _, err := w.s.objects.Delete(ctx, res, ns, name, generic.DeleteOptions{UID: &uid}); err != nil && !isStatus(err, http.StatusNotFound) {
			return err
		}
		u.SetResourceVersion("")
		u.SetUID("")
		return w.create(ctx, res, u)
	}
	return nil
}

// create creates u, whose namespace is created first if missing (kube's
// hook does the same for kube-system and kube-public). Someone else
// creating it first is success. The default objects are the server's
// own, written as it writes the system namespaces: with no managed
// fields to track, which on a new cluster's hundred-odd objects would
// double the time to ready.
func (w rbacWriter) create(ctx context.Context, res *registry.Resource, u *unstructured.Unstructured) error {
	if ns := u.GetNamespace(); ns != "" {
		if err := w.s.ensureNamespace(ctx, ns); err != nil {
			return err
		}
	}
	_, err := w.s.objects.EnsureCreated(ctx, res, u)
	return err
}

// migrate carries legacy objects over before reconciling: the rules of
// roles that became aggregated, and the subjects of a binding that was
// split.
func (w rbacWriter) migrate(ctx context.Context) error {
	var errs []error
	for _, a := range bootstrap.Aggregations() {
		var into, from *rbacv1.ClusterRole
		if err := w.get(w.clusterRoles, "", a.Into, &into); err != nil || into != nil {
			errs = append(errs, err)
			continue
		}
		if err := w.get(w.clusterRoles, "", a.From, &from); err != nil {
			errs = append(errs, err)
			continue
		}
		if m := bootstrap.MigrateAggregation(a, from); m != nil {
			errs = append(errs, w.write(ctx, w.clusterRoles, true, bootstrap.OpCreate, m, ""))
		}
	}
	for _, sp := range bootstrap.Splits() {
		var into, from *rbacv1.ClusterRoleBinding
		if err := w.get(w.clusterRoleBindings, "", sp.Into.Name, &into); err != nil || into != nil {
			errs = append(errs, err)
			continue
		}
		if err := w.get(w.clusterRoleBindings, "", sp.From, &from); err != nil {
			errs = append(errs, err)
			continue
		}
		if b := bootstrap.SplitBinding(sp, from); b != nil {
			errs = append(errs, w.write(ctx, w.clusterRoleBindings, true, bootstrap.OpCreate, b, ""))
		}
	}
	return errors.Join(errs...)
}

// isStatus reports whether err is a Status with code.
func isStatus(err error, code int32) bool {
	var st *apierror.StatusError
	return errors.As(err, &st) && st.Status.Code == code
}

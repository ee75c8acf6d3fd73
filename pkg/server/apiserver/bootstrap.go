package apiserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// systemNamespaces exist on every Kubernetes cluster, and clients assume
// them: kubectl's default namespace is "default", leader election often
// uses kube-system, node leases live in kube-node-lease.
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// defaultSystemNamespaceInterval is how often kube-apiserver's system
// namespaces controller checks that they exist.
const defaultSystemNamespaceInterval = time.Minute

// bootstrap creates what a new cluster has before it serves.
func (s *Server) bootstrap(ctx context.Context) error {
	if err := s.ensureSystemNamespaces(ctx); err != nil {
		return err
	}
	if err := s.ensureKubernetesService(ctx); err != nil {
		return err
	}
	return s.bootstrapRBAC(ctx)
}

// keepSystemNamespaces recreates a missing system namespace every
// Config.SystemNamespaceInterval until ctx ends, as kube-apiserver does:
// the deletable ones (kube-node-lease) and any removed behind the API's
// back come back. A namespace still terminating is left to finish.
func (s *Server) keepSystemNamespaces(ctx context.Context) {
	t := time.NewTicker(s.cfg.SystemNamespaceInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := s.ensureSystemNamespaces(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("cannot recreate a system namespace", "err", err)
		}
		if err := s.ensureKubernetesService(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("cannot keep the kubernetes service", "err", err)
		}
	}
}

// ensureSystemNamespaces creates each system namespace that does not
// exist.
func (s *Server) ensureSystemNamespaces(ctx context.Context) error {
	var errs []error
	for _, name := range systemNamespaces {
		errs = append(errs, s.ensureNamespace(ctx, name))
	}
	return errors.Join(errs...)
}

// ensureNamespace creates the namespace name unless it exists.
func (s *Server) ensureNamespace(ctx context.Context, name string) error {
	res, ok := s.reg.Get(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	if !ok {
		return nil
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace"}}
	u.SetName(name)
	created, err := s.objects.EnsureCreated(ctx, res, u)
	switch {
	case err != nil:
		return fmt.Errorf("apiserver: system namespace %s: %w", name, err)
	case created:
		s.log.Info("created system namespace", "namespace", name)
	}
	return nil
}

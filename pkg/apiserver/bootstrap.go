package apiserver

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// systemNamespaces exist on every Kubernetes cluster, and clients assume
// them: kubectl's default namespace is "default", leader election often
// uses kube-system, node leases live in kube-node-lease.
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// bootstrap creates what a new cluster has before it serves.
func (s *Server) bootstrap(ctx context.Context) error {
	res, ok := s.namespaces()
	if !ok {
		return nil
	}
	for _, name := range systemNamespaces {
		key := res.Key("", name)
		if _, err := s.store.Get(ctx, key); err == nil {
			continue
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace"}}
		u.SetName(name)
		now := s.now()
		prepareCreateMeta(u, now, res.TracksGeneration)
		if res.Strategy != nil {
			if errs := res.Strategy.PrepareForCreate(now, u.Object); len(errs) > 0 {
				return fmt.Errorf("apiserver: bootstrap namespace %s: %v", name, errs.ToAggregate())
			}
		}
		val, err := storedBytes(u)
		if err != nil {
			return err
		}
		if _, err := s.store.Create(ctx, key, val); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
			return fmt.Errorf("apiserver: bootstrap namespace %s: %w", name, err)
		}
	}
	return nil
}

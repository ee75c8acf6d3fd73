package apiserver

import (
	"context"
	"errors"
	"net"
	"net/netip"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The "kubernetes" Service in default names the API server inside the
// cluster, as kube-apiserver keeps it: port 443 (https) to the
// server's port, at the first cluster IP, with Endpoints and an
// EndpointSlice holding the address the server advertises.
var (
	servicesGVR       = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	endpointsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
	endpointSlicesGVR = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
)

// advertised is the address the server advertises: the configured one,
// else the listener's, else loopback on 6443.
func (s *Server) advertised() netip.AddrPort {
	if s.cfg.AdvertiseAddress.IsValid() {
		return s.cfg.AdvertiseAddress
	}
	if ap := s.listenAddr.Load(); ap != nil {
		return *ap
	}
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 6443)
}

func (s *Server) setListenAddr(ln net.Listener) {
	if ap, err := netip.ParseAddrPort(ln.Addr().String()); err == nil {
		ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		if ap.Addr().IsUnspecified() {
			ap = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port())
		}
		s.listenAddr.Store(&ap)
	}
}

// ensureKubernetesService creates the Service and keeps its endpoints on
// the advertised address.
func (s *Server) ensureKubernetesService(ctx context.Context) error {
	svcRes, ok1 := s.reg.Get(servicesGVR)
	epRes, ok2 := s.reg.Get(endpointsGVR)
	sliceRes, ok3 := s.reg.Get(endpointSlicesGVR)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	addr := s.advertised()
	ip, port := addr.Addr().String(), int64(addr.Port())
	labels := map[string]any{"component": "apiserver", "provider": "kubernetes"}
	svc := object("v1", "Service", map[string]any{
		"spec": map[string]any{
			"type": "ClusterIP", "clusterIP": s.serviceRanges().KubernetesServiceIP().String(), "sessionAffinity": "None",
			"ports": []any{map[string]any{"name": "https", "port": int64(443), "protocol": "TCP", "targetPort": port}},
		},
	}, labels)
	ep := object("v1", "Endpoints", map[string]any{
		"subsets": []any{map[string]any{
			"addresses": []any{map[string]any{"ip": ip}},
			"ports":     []any{map[string]any{"name": "https", "port": port, "protocol": "TCP"}},
		}},
	}, map[string]any{"endpointslice.kubernetes.io/skip-mirror": "true"})
	slice := object("discovery.k8s.io/v1", "EndpointSlice", map[string]any{
		"addressType": "IPv4",
		"endpoints":   []any{map[string]any{"addresses": []any{ip}, "conditions": map[string]any{"ready": true}}},
		"ports":       []any{map[string]any{"name": "https", "port": port, "protocol": "TCP"}},
	}, map[string]any{"kubernetes.io/service-name": "kubernetes"})
	var errs []error
	if _, err := s.objects.EnsureCreated(ctx, svcRes, svc); err != nil {
		errs = append(errs, err)
	}
	for _, want := range []struct {
		res *registry.Resource
		obj *unstructured.Unstructured
		top []string
	}{{epRes, ep, []string{"subsets"}}, {sliceRes, slice, []string{"addressType", "endpoints", "ports"}}} {
		errs = append(errs, s.keepObject(ctx, want.res, want.obj, want.top))
	}
	return errors.Join(errs...)
}

// keepObject creates want, or updates its top-level fields top when the
// stored object's differ.
func (s *Server) keepObject(ctx context.Context, res *registry.Resource, want *unstructured.Unstructured, top []string) error {
	created, err := s.objects.EnsureCreated(ctx, res, want.DeepCopy())
	if err != nil || created {
		return err
	}
	_, err = s.objects.Update(ctx, res, want.GetNamespace(), want.GetName(), func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		for _, k := range top {
			cur.Object[k] = want.Object[k]
		}
		cur.SetResourceVersion("")
		return cur, nil
	}, generic.UpdateOptions{FieldManager: "kube-apiserver"})
	var se *apierror.StatusError
	if errors.As(err, &se) && se.Status.Reason == metav1.StatusReasonNotFound {
		return nil
	}
	return err
}

func object(apiVersion, kind string, fields, labels map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: fields}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace("default")
	u.SetName("kubernetes")
	u.Object["metadata"].(map[string]any)["labels"] = labels
	return u
}

// serviceRanges is the configured ranges, defaults filled in.
func (s *Server) serviceRanges() registry.ServiceRanges {
	r := s.cfg.ServiceRanges
	if !r.ClusterIPs.IsValid() {
		r.ClusterIPs = registry.DefaultServiceRanges().ClusterIPs
	}
	return r
}

//lint:file-ignore SA1019 core/v1 Endpoints are deprecated but kept up to date, as kube 1.33 keeps them

package endpoints

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// The labels kube's endpointslice controller puts on the slices it
// manages.
const (
	serviceNameLabel = discoveryv1.LabelServiceName
	managedByLabel   = discoveryv1.LabelManagedBy
	managedBy        = "endpointslice-controller.k8s.io"
)

// reconciler brings one Service's EndpointSlices and Endpoints to what
// its Pods make them.
type reconciler struct {
	cache client.Reader // Services, Pods, EndpointSlices, Endpoints from informers
	api   client.Writer
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	svc := &corev1.Service{}
	if err := r.cache.Get(ctx, req.NamespacedName, svc); err != nil {
		if !client.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		// Slices go with their owner (the garbage collector); the
		// legacy Endpoints, which have none, go here.
		ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name}}
		if err := r.api.Delete(ctx, ep); err != nil && !client.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		return reconcile.Result{}, nil
	}
	if svc.Spec.Selector == nil || svc.Spec.Type == corev1.ServiceTypeExternalName || svc.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	pods := &corev1.PodList{}
	if err := r.cache.List(ctx, pods, client.InNamespace(svc.Namespace), client.MatchingLabels(svc.Spec.Selector)); err != nil {
		return reconcile.Result{}, err
	}
	ptrs := make([]*corev1.Pod, len(pods.Items))
	for i := range pods.Items {
		ptrs[i] = &pods.Items[i]
	}
	groups := desired(svc, ptrs)
	if err := r.slices(ctx, svc, groups); err != nil {
		return reconcile.Result{}, fmt.Errorf("endpoint slices: %w", err)
	}
	if err := r.endpoints(ctx, svc, groups); err != nil {
		return reconcile.Result{}, fmt.Errorf("endpoints: %w", err)
	}
	return reconcile.Result{}, nil
}

// slices writes svc's EndpointSlices: one per hundred endpoints of a
// port group, an empty placeholder when there are none, existing slices
// reused in name order and the rest deleted.
func (r *reconciler) slices(ctx context.Context, svc *corev1.Service, groups []group) error {
	var want []discoveryv1.EndpointSlice
	for _, g := range groups {
		for chunk := range slices.Chunk(g.endpoints, maxEndpointsPerSlice) {
			want = append(want, discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4, Endpoints: chunk, Ports: g.ports})
		}
	}
	if len(want) == 0 {
		want = []discoveryv1.EndpointSlice{{AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{}}}
	}
	have := &discoveryv1.EndpointSliceList{}
	if err := r.cache.List(ctx, have, client.InNamespace(svc.Namespace),
		client.MatchingLabels{serviceNameLabel: svc.Name, managedByLabel: managedBy}); err != nil {
		return err
	}
	slices.SortFunc(have.Items, func(a, b discoveryv1.EndpointSlice) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	labels := sliceLabels(svc)
	for i, w := range want {
		if i < len(have.Items) {
			cur := have.Items[i].DeepCopy()
			if equality.Semantic.DeepEqual(cur.Endpoints, w.Endpoints) && equality.Semantic.DeepEqual(cur.Ports, w.Ports) &&
				maps.Equal(cur.Labels, labels) && cur.AddressType == w.AddressType {
				continue
			}
			cur.Endpoints, cur.Ports, cur.Labels = w.Endpoints, w.Ports, labels
			if err := r.api.Update(ctx, cur); err != nil {
				return err
			}
			continue
		}
		w.ObjectMeta = metav1.ObjectMeta{
			Namespace: svc.Namespace, GenerateName: svc.Name + "-", Labels: labels,
			OwnerReferences: []metav1.OwnerReference{ownerRef(svc)},
		}
		if err := r.api.Create(ctx, &w); err != nil {
			return err
		}
	}
	for i := len(want); i < len(have.Items); i++ {
		if err := r.api.Delete(ctx, &have.Items[i]); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// endpoints writes svc's legacy Endpoints.
func (r *reconciler) endpoints(ctx context.Context, svc *corev1.Service, groups []group) error {
	want := subsets(groups)
	labels := maps.Clone(svc.Labels)
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[corev1.IsHeadlessService] = ""
	}
	cur := &corev1.Endpoints{}
	err := r.cache.Get(ctx, types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}, cur)
	switch {
	case client.IsNotFound(err):
		ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: svc.Name, Labels: labels}, Subsets: want}
		if err := r.api.Create(ctx, ep); err != nil && !client.IsAlreadyExists(err) {
			return err
		}
		return nil
	case err != nil:
		return err
	}
	if equality.Semantic.DeepEqual(cur.Subsets, want) && maps.Equal(cur.Labels, labels) {
		return nil
	}
	cur = cur.DeepCopy()
	cur.Subsets, cur.Labels = want, labels
	return r.api.Update(ctx, cur)
}

func sliceLabels(svc *corev1.Service) map[string]string {
	l := maps.Clone(svc.Labels)
	if l == nil {
		l = map[string]string{}
	}
	l[serviceNameLabel] = svc.Name
	l[managedByLabel] = managedBy
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		l[corev1.IsHeadlessService] = ""
	}
	return l
}

func ownerRef(svc *corev1.Service) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}

package registry

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1beta1 "k8s.io/api/discovery/v1beta1"
)

// networkBuiltins are the kinds that route traffic to Pods: Services and
// the endpoints a controller keeps for them.
func networkBuiltins(o BuiltinOptions) []*Resource {
	return []*Resource{
		{
			Version: "v1", Kind: "Service", ListKind: "ServiceList",
			Plural: "services", Singular: "service", ShortNames: []string{"svc"}, Categories: []string{"all"},
			Namespaced: true, StatusSubresource: true, Typed: true,
			SelectableFields: []string{"spec.clusterIP", "spec.type"},
			Columns:          serviceColumns(),
			Strategy:         serviceStrategy{ranges: o.Services},
			CreatesOnUpdate:  true,
		},
		{
			Version: "v1", Kind: "Endpoints", ListKind: "EndpointsList",
			Plural: "endpoints", Singular: "endpoints", ShortNames: []string{"ep"},
			Namespaced: true, Typed: true, CreatesOnUpdate: true,
			Columns: []Column{
				//lint:ignore SA1019 core/v1 Endpoints are deprecated but served, as in kube 1.33
				{Name: "Endpoints", Type: "string", Description: corev1.Endpoints{}.SwaggerDoc()["subsets"], Value: endpointsCell},
			},
		},
		{
			Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice", ListKind: "EndpointSliceList",
			Plural: "endpointslices", Singular: "endpointslice",
			Namespaced: true, Typed: true,
			Columns: []Column{
				{Name: "AddressType", Type: "string", Description: endpointSliceDocs["addressType"], Path: ".addressType"},
				{Name: "Ports", Type: "string", Description: endpointSliceDocs["ports"], Value: sliceCell(endpointSlicePorts)},
				{Name: "Endpoints", Type: "string", Description: endpointSliceDocs["endpoints"], Value: sliceCell(endpointSliceEndpoints)},
			},
		},
	}
}

// endpointSliceDocs describe the EndpointSlice columns: kube's printer
// takes them from discovery.k8s.io/v1beta1, whose wording differs from
// v1's.
var endpointSliceDocs = discoveryv1beta1.EndpointSlice{}.SwaggerDoc()

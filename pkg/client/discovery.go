package client

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// acceptDiscovery asks for the aggregated discovery list (one request for
// every group) and takes the legacy documents from servers without it;
// the answer's Content-Type says which came.
const acceptDiscovery = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

// legacyFetches bounds concurrent per-group-version requests when a
// server has no aggregated discovery.
const legacyFetches = 8

// apiResource is one resource as discovery lists it; subresources are
// left out.
type apiResource struct {
	gvr        schema.GroupVersionResource
	kind       string
	singular   string
	namespaced bool
	verbs      []string
}

// discover returns every served resource in discovery's priority order:
// the core group, then the groups as the server orders them, each
// group's versions preferred first.
func (c *Client) discover(ctx context.Context) ([]apiResource, error) {
	core, err := c.discoverRoot(ctx, "/api")
	if err != nil {
		return nil, err
	}
	groups, err := c.discoverRoot(ctx, "/apis")
	if err != nil {
		return nil, err
	}
	return append(core, groups...), nil
}

func (c *Client) discoverRoot(ctx context.Context, path string) ([]apiResource, error) {
	rep, err := c.call(ctx, request{method: http.MethodGet, path: path, accept: acceptDiscovery})
	if err != nil {
		return nil, fmt.Errorf("client: discovery: %w", err)
	}
	if aggregated(rep.contentType) {
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(rep.body, &list); err != nil {
			return nil, fmt.Errorf("%w: discovery %s: %v", ErrDecode, path, err)
		}
		return fromAggregated(&list), nil
	}
	var gvs []schema.GroupVersion
	if path == "/api" {
		var versions metav1.APIVersions
		if err := json.Unmarshal(rep.body, &versions); err != nil {
			return nil, fmt.Errorf("%w: discovery %s: %v", ErrDecode, path, err)
		}
		for _, v := range versions.Versions {
			gvs = append(gvs, schema.GroupVersion{Version: v})
		}
	} else {
		var groups metav1.APIGroupList
		if err := json.Unmarshal(rep.body, &groups); err != nil {
			return nil, fmt.Errorf("%w: discovery %s: %v", ErrDecode, path, err)
		}
		for _, g := range groups.Groups {
			gvs = append(gvs, preferredFirst(g)...)
		}
	}
	return c.discoverLegacy(ctx, gvs), nil
}

// aggregated reports whether an answer is the apidiscovery.k8s.io/v2 list.
func aggregated(contentType string) bool {
	_, p, err := mime.ParseMediaType(contentType)
	return err == nil && p["g"] == "apidiscovery.k8s.io" && p["v"] == "v2" && p["as"] == "APIGroupDiscoveryList"
}

func fromAggregated(list *apidiscoveryv2.APIGroupDiscoveryList) []apiResource {
	var out []apiResource
	for _, g := range list.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				if r.ResponseKind == nil || r.ResponseKind.Kind == "" {
					continue
				}
				out = append(out, apiResource{
					gvr:        schema.GroupVersionResource{Group: g.Name, Version: v.Version, Resource: r.Resource},
					kind:       r.ResponseKind.Kind,
					singular:   r.SingularResource,
					namespaced: r.Scope == apidiscoveryv2.ScopeNamespace,
					verbs:      r.Verbs,
				})
			}
		}
	}
	return out
}

// preferredFirst lists a group's versions with the preferred one first.
func preferredFirst(g metav1.APIGroup) []schema.GroupVersion {
	var out []schema.GroupVersion
	if p := g.PreferredVersion.Version; p != "" {
		out = append(out, schema.GroupVersion{Group: g.Name, Version: p})
	}
	for _, v := range g.Versions {
		if v.Version != g.PreferredVersion.Version {
			out = append(out, schema.GroupVersion{Group: g.Name, Version: v.Version})
		}
	}
	return out
}

// discoverLegacy reads /api/<v> and /apis/<g>/<v>. A group version that
// fails (an aggregated API server that is down) is left out rather than
// failing the rest; its kinds are looked up again on their next miss.
func (c *Client) discoverLegacy(ctx context.Context, gvs []schema.GroupVersion) []apiResource {
	results := make([][]apiResource, len(gvs))
	sem := make(chan struct{}, legacyFetches)
	var wg sync.WaitGroup
	for i, gv := range gvs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := c.discoverGroupVersion(ctx, gv)
			if err != nil {
				c.log.DebugContext(ctx, "discovery of a group version failed", "groupVersion", gv.String(), "err", err)
				return
			}
			results[i] = res
		})
	}
	wg.Wait()
	return slices.Concat(results...)
}

func (c *Client) discoverGroupVersion(ctx context.Context, gv schema.GroupVersion) ([]apiResource, error) {
	path := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		path = "/api/" + gv.Version
	}
	rep, err := c.call(ctx, request{method: http.MethodGet, path: path, accept: mediaJSON})
	if err != nil {
		return nil, err
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(rep.body, &list); err != nil {
		return nil, fmt.Errorf("%w: discovery %s: %v", ErrDecode, path, err)
	}
	var out []apiResource
	for _, r := range list.APIResources {
		if strings.Contains(r.Name, "/") || r.Kind == "" {
			continue
		}
		out = append(out, apiResource{
			gvr:        gv.WithResource(r.Name),
			kind:       r.Kind,
			singular:   r.SingularName,
			namespaced: r.Namespaced,
			verbs:      r.Verbs,
		})
	}
	return out, nil
}

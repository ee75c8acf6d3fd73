package discovery

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// The aggregated discovery list is asked for, and answered, as JSON with
// the group, version and kind as media type parameters. client-go sends
// them in this order and matches the answer's parameters by name.
const (
	discoveryGroup    = "apidiscovery.k8s.io"
	discoveryListKind = "APIGroupDiscoveryList"

	contentTypeJSON    = "application/json"
	contentTypeV2      = contentTypeJSON + ";g=" + discoveryGroup + ";v=v2;as=" + discoveryListKind
	contentTypeV2Beta1 = contentTypeJSON + ";g=" + discoveryGroup + ";v=v2beta1;as=" + discoveryListKind
)

// format is one representation the handler can answer with.
type format int

const (
	formatNone    format = iota // nothing acceptable
	formatLegacy                // plain JSON: APIVersions, APIGroupList, ...
	formatV2                    // apidiscovery.k8s.io/v2 APIGroupDiscoveryList
	formatV2Beta1               // apidiscovery.k8s.io/v2beta1 APIGroupDiscoveryList
)

// mediaRange is one clause of an Accept header.
type mediaRange struct {
	typ, sub string
	q        float64
	// specificity orders clauses of equal q: type/sub before type/* before */*.
	specificity int
	params      map[string]string
}

// parseAccept splits an Accept header into its clauses, most preferred
// first: by q-value, then by specificity, then in header order. Malformed
// clauses and clauses with q=0 (explicitly unacceptable) are dropped.
func parseAccept(header string) []mediaRange {
	var out []mediaRange
	for part := range strings.SplitSeq(header, ",") {
		fields := strings.Split(part, ";")
		mt := strings.ToLower(strings.TrimSpace(fields[0]))
		if mt == "*" {
			// Not valid by the RFC, but some clients send it for */*.
			mt = "*/*"
		}
		typ, sub, ok := strings.Cut(mt, "/")
		if !ok || typ == "" || sub == "" || strings.Contains(sub, "/") || (typ == "*" && sub != "*") {
			continue
		}
		m := mediaRange{typ: typ, sub: sub, q: 1}
		switch {
		case typ == "*":
			m.specificity = 0
		case sub == "*":
			m.specificity = 1
		default:
			m.specificity = 2
		}
		valid := true
		for _, p := range fields[1:] {
			k, v, ok := strings.Cut(p, "=")
			if !ok {
				continue
			}
			k = strings.ToLower(strings.TrimSpace(k))
			v = strings.TrimSpace(v)
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			if k == "q" {
				q, err := strconv.ParseFloat(v, 64)
				if err != nil || q < 0 || q > 1 {
					valid = false
					break
				}
				m.q = q
				continue
			}
			if m.params == nil {
				m.params = map[string]string{}
			}
			m.params[k] = v
		}
		if !valid || m.q == 0 {
			continue
		}
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b mediaRange) int {
		if c := cmp.Compare(b.q, a.q); c != 0 {
			return c
		}
		return cmp.Compare(b.specificity, a.specificity)
	})
	return out
}

// negotiate picks the representation to answer an Accept header with.
// aggregated says whether the path offers the aggregated list (only /api
// and /apis do). An empty header accepts anything, so it gets plain JSON.
//
// This follows kube-apiserver: a clause matches when its type covers
// application/json; a clause without g, v or as parameters is plain JSON;
// one with them is only servable as the aggregated discovery list.
// Other parameters (profile, pretty, charset) do not change the answer:
// this server has no peers, so profile=nopeer is the same document.
func negotiate(header string, aggregated bool) format {
	if strings.TrimSpace(header) == "" {
		return formatLegacy
	}
	for _, m := range parseAccept(header) {
		if m.typ != "*" && (m.typ != "application" || (m.sub != "json" && m.sub != "*")) {
			continue
		}
		g, hasG := m.params["g"]
		v, hasV := m.params["v"]
		as, hasAs := m.params["as"]
		if !hasG && !hasV && !hasAs {
			return formatLegacy
		}
		if !aggregated || g != discoveryGroup || as != discoveryListKind {
			continue
		}
		switch v {
		case "v2":
			return formatV2
		case "v2beta1":
			return formatV2Beta1
		}
	}
	return formatNone
}

func (f format) contentType() string {
	switch f {
	case formatV2:
		return contentTypeV2
	case formatV2Beta1:
		return contentTypeV2Beta1
	}
	return contentTypeJSON
}

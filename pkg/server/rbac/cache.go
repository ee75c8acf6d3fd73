package rbac

import (
	"strconv"
	"strings"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// cacheSize bounds the decisions kept for one policy; when full the
// cache starts over, which a working set of that size never notices.
const cacheSize = 8192

// cacheKey is everything an RBAC decision depends on: the user's name,
// uid and groups, and every attribute.
type cacheKey struct {
	user, uid string
	// groups is the groups length-prefixed, so no two lists share an
	// encoding whatever characters the names hold.
	groups          string
	verb            string
	resourceRequest bool
	namespace       string
	apiGroup        string
	apiVersion      string
	resource        string
	subresource     string
	name            string
	path            string
}

func keyOf(a *authorizer.Attributes) cacheKey {
	return cacheKey{
		user:            a.User.Username,
		uid:             a.User.UID,
		groups:          encodeGroups(a.User.Groups),
		verb:            a.Verb,
		resourceRequest: a.ResourceRequest,
		namespace:       a.Namespace,
		apiGroup:        a.APIGroup,
		apiVersion:      a.APIVersion,
		resource:        a.Resource,
		subresource:     a.Subresource,
		name:            a.Name,
		path:            a.Path,
	}
}

func encodeGroups(groups []string) string {
	n := 0
	for _, g := range groups {
		n += len(g) + 4
	}
	var b strings.Builder
	b.Grow(n)
	var num [20]byte
	for _, g := range groups {
		b.Write(strconv.AppendInt(num[:0], int64(len(g)), 10))
		b.WriteByte(':')
		b.WriteString(g)
	}
	return b.String()
}

type decision struct {
	allowed bool
	reason  string
}

// decisionCache holds the decisions made under one policy.
type decisionCache struct {
	mu sync.RWMutex
	m  map[cacheKey]decision
}

func newDecisionCache() *decisionCache {
	return &decisionCache{m: make(map[cacheKey]decision)}
}

func (c *decisionCache) get(k cacheKey) (decision, bool) {
	c.mu.RLock()
	d, ok := c.m[k]
	c.mu.RUnlock()
	return d, ok
}

func (c *decisionCache) put(k cacheKey, d decision) {
	c.mu.Lock()
	if len(c.m) >= cacheSize {
		clear(c.m)
	}
	c.m[k] = d
	c.mu.Unlock()
}

func (c *decisionCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

package credentials

import (
	"crypto/sha256"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
)

// tokenCacheTTL is how long a token whose signature and claims were
// checked is trusted without checking them again, kube-apiserver's
// success TTL for its token cache. Unlike kube's cache, this one does not
// skip the bound-object check, which costs a cache lookup: a token bound
// to a deleted pod stops working at once, where kube's works for up to
// these 10 s.
const tokenCacheTTL = 10 * time.Second

// tokenCacheSize bounds the tokens remembered; past it the cache starts
// over, which costs a signature check per client, not correctness.
const tokenCacheSize = 4096

// ServiceAccountTokens authenticates ServiceAccount tokens: JWTs from one
// of the server's issuers, signed by a key of its key set, meant for the
// audiences asked for, whose service account and bound object still
// exist.
type ServiceAccountTokens struct {
	keys      *serviceaccount.KeySet
	issuers   []string
	audiences []string
	objects   serviceaccount.Getter
	now       func() time.Time
	cache     tokenCache
}

// NewServiceAccountTokens returns an authenticator of the tokens issuers
// signed with keys. audiences are the server's API audiences
// (kube-apiserver's --api-audiences); objects looks up what a token names
// when it is presented; nil now is time.Now.
func NewServiceAccountTokens(keys *serviceaccount.KeySet, issuers, audiences []string, objects serviceaccount.Getter, now func() time.Time) *ServiceAccountTokens {
	if now == nil {
		now = time.Now
	}
	return &ServiceAccountTokens{keys: keys, issuers: issuers, audiences: audiences, objects: objects, now: now}
}

// APIAudiences are the audiences a token is checked for when none are
// asked for.
func (t *ServiceAccountTokens) APIAudiences() []string { return t.audiences }

// AuthenticateToken returns who token authenticates as when it is meant
// for one of audiences (nil: the API audiences), and which of those it
// is meant for. ok false with a nil error means the token is not one of
// this server's service account tokens, for another authenticator to
// judge; an error says, in kube-apiserver's words, why one of its tokens
// is refused.
func (t *ServiceAccountTokens) AuthenticateToken(token string, audiences []string) (u authenticationv1.UserInfo, matched []string, ok bool, err error) {
	now := t.now()
	// Only the API audiences' answers are cached: they are what every
	// request is checked for.
	api := audiences == nil
	if api {
		audiences = t.audiences
	}
	key := sha256.Sum256([]byte(token))
	var claims *serviceaccount.Claims
	if api {
		claims = t.cache.get(key, now)
	}
	if claims == nil {
		claims, err = t.keys.Validate(token, now, audiences, t.issuers)
		if serviceaccount.Unrecognized(err) {
			return u, nil, false, nil
		}
		if err != nil {
			return u, nil, false, err
		}
		if api {
			t.cache.put(key, claims, now)
		}
	}
	if err := serviceaccount.CheckBound(t.objects, claims, now); err != nil {
		return u, nil, false, err
	}
	return serviceaccount.UserInfo(claims), claims.MatchAudiences(audiences), true, nil
}

// tokenCache remembers the claims of validated tokens by the tokens'
// SHA-256, each until the cache's TTL or the token's expiry, whichever
// comes first.
type tokenCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]tokenEntry
}

type tokenEntry struct {
	claims *serviceaccount.Claims
	until  time.Time
}

func (c *tokenCache) get(key [sha256.Size]byte, now time.Time) *serviceaccount.Claims {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil
	}
	if !now.Before(e.until) {
		delete(c.entries, key)
		return nil
	}
	return e.claims
}

func (c *tokenCache) put(key [sha256.Size]byte, claims *serviceaccount.Claims, now time.Time) {
	until := now.Add(tokenCacheTTL)
	if !claims.Expiry.IsZero() && claims.Expiry.Before(until) {
		until = claims.Expiry
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= tokenCacheSize {
		c.entries = make(map[[sha256.Size]byte]tokenEntry)
	}
	c.entries[key] = tokenEntry{claims: claims, until: until}
}

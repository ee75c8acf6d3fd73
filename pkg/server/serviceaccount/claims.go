package serviceaccount

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Claims are what a service account token says. Times are whole
// seconds in UTC; a zero time is a claim the token does not carry.
type Claims struct {
	Issuer    string    // iss
	Subject   string    // sub: system:serviceaccount:<namespace>:<name>
	Audiences []string  // aud
	Expiry    time.Time // exp
	NotBefore time.Time // nbf
	IssuedAt  time.Time // iat
	ID        string    // jti, a random UUID

	// The private "kubernetes.io" claim.
	Namespace      string
	ServiceAccount Ref
	// The object the token is bound to: a Pod (with the Node it runs on,
	// when it was scheduled), a Secret, or a Node alone.
	Pod, Secret, Node *Ref
	// WarnAfter is set on tokens whose expiry kube-apiserver extended
	// (see Limits.Lifetime): past it, the token is still valid but stale.
	WarnAfter time.Time
}

// Ref names an object a token refers to.
type Ref struct {
	Name string
	UID  string
}

// TokenSpec is what a token is issued for, once TokenRequest's
// defaults, limits and extension are applied.
type TokenSpec struct {
	Issuer         string
	Namespace      string
	ServiceAccount Ref
	// At most one of Secret and Pod. Node alone binds the token to a
	// node; with Pod it records the node the pod was scheduled to.
	Pod, Secret, Node *Ref
	Audiences         []string
	// ExpirationSeconds is the token's lifetime (Lifetime's
	// TokenExpirationSeconds), WarnAfterSeconds when it turns stale (0:
	// never).
	ExpirationSeconds int64
	WarnAfterSeconds  int64
}

// NewClaims builds the claims kube-apiserver issues for s at now: sub
// from the service account, iat and nbf now, exp and warnafter that many
// seconds later, a fresh random jti.
func NewClaims(s TokenSpec, now time.Time) (Claims, error) {
	if s.Secret != nil && (s.Pod != nil || s.Node != nil) {
		return Claims{}, errors.New("internal error, token can only be bound to one object type")
	}
	jti, err := newUUID()
	if err != nil {
		return Claims{}, err
	}
	now = now.UTC().Truncate(time.Second)
	c := Claims{
		Issuer:         s.Issuer,
		Subject:        MakeUsername(s.Namespace, s.ServiceAccount.Name),
		Audiences:      s.Audiences,
		IssuedAt:       now,
		NotBefore:      now,
		Expiry:         now.Add(time.Duration(s.ExpirationSeconds) * time.Second),
		ID:             jti,
		Namespace:      s.Namespace,
		ServiceAccount: s.ServiceAccount,
		Pod:            s.Pod,
		Secret:         s.Secret,
		Node:           s.Node,
	}
	if s.WarnAfterSeconds != 0 {
		c.WarnAfter = now.Add(time.Duration(s.WarnAfterSeconds) * time.Second)
	}
	return c, nil
}

// newUUID is a random (version 4) UUID, the jti kube-apiserver gives
// every token since 1.29.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("serviceaccount: jti: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32], nil
}

// The JSON of a token's payload. kube-apiserver's JOSE library writes
// the claims as a map, so their keys come out sorted; the fields here
// are declared in that order so the payload is the same bytes.
type wireClaims struct {
	Audience   audience     `json:"aud,omitempty"`
	Expiry     *numericDate `json:"exp,omitempty"`
	IssuedAt   *numericDate `json:"iat,omitempty"`
	Issuer     string       `json:"iss,omitempty"`
	ID         string       `json:"jti,omitempty"`
	Kubernetes *wireKube    `json:"kubernetes.io,omitempty"`
	NotBefore  *numericDate `json:"nbf,omitempty"`
	Subject    string       `json:"sub,omitempty"`
}

type wireKube struct {
	Namespace      string       `json:"namespace,omitempty"`
	Node           *wireRef     `json:"node,omitempty"`
	Pod            *wireRef     `json:"pod,omitempty"`
	Secret         *wireRef     `json:"secret,omitempty"`
	ServiceAccount *wireRef     `json:"serviceaccount,omitempty"`
	WarnAfter      *numericDate `json:"warnafter,omitempty"`
}

type wireRef struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

func (c *Claims) wire() wireClaims {
	return wireClaims{
		Audience:  c.Audiences,
		Expiry:    dateOf(c.Expiry),
		IssuedAt:  dateOf(c.IssuedAt),
		Issuer:    c.Issuer,
		ID:        c.ID,
		NotBefore: dateOf(c.NotBefore),
		Subject:   c.Subject,
		Kubernetes: &wireKube{
			Namespace:      c.Namespace,
			Node:           wireRefOf(c.Node),
			Pod:            wireRefOf(c.Pod),
			Secret:         wireRefOf(c.Secret),
			ServiceAccount: &wireRef{Name: c.ServiceAccount.Name, UID: c.ServiceAccount.UID},
			WarnAfter:      dateOf(c.WarnAfter),
		},
	}
}

func (w *wireClaims) claims() *Claims {
	c := &Claims{
		Issuer:    w.Issuer,
		Subject:   w.Subject,
		Audiences: w.Audience,
		Expiry:    w.Expiry.time(),
		NotBefore: w.NotBefore.time(),
		IssuedAt:  w.IssuedAt.time(),
		ID:        w.ID,
	}
	if k := w.Kubernetes; k != nil {
		c.Namespace = k.Namespace
		if k.ServiceAccount != nil {
			c.ServiceAccount = Ref(*k.ServiceAccount)
		}
		c.Pod = k.Pod.ref()
		c.Secret = k.Secret.ref()
		c.Node = k.Node.ref()
		c.WarnAfter = k.WarnAfter.time()
	}
	return c
}

func wireRefOf(r *Ref) *wireRef {
	if r == nil {
		return nil
	}
	w := wireRef(*r)
	return &w
}

func (w *wireRef) ref() *Ref {
	if w == nil {
		return nil
	}
	r := Ref(*w)
	return &r
}

// audience is written as an array, as kube-apiserver writes it, and read
// as RFC 7519 allows: one string or an array of strings.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return errors.New("aud is null")
	}
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("aud is neither a string nor an array of strings")
	}
	*a = many
	return nil
}

// numericDate is seconds since the epoch (RFC 7519 section 2).
// Fractions are dropped, as kube-apiserver drops them.
type numericDate int64

func dateOf(t time.Time) *numericDate {
	if t.IsZero() {
		return nil
	}
	d := numericDate(t.Unix())
	return &d
}

func (d *numericDate) time() time.Time {
	if d == nil {
		return time.Time{}
	}
	return time.Unix(int64(*d), 0).UTC()
}

func (d numericDate) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(d), 10), nil
}

func (d *numericDate) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(b)), 64)
	// Past ±2^62 seconds the time package overflows; no real token is
	// there.
	if err != nil || math.IsNaN(f) || math.Abs(f) > 1<<62 {
		return errors.New("not a numeric date")
	}
	*d = numericDate(int64(f))
	return nil
}

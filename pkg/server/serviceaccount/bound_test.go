package serviceaccount

import (
	"errors"
	"testing"
	"time"
)

// objects is a Getter over a fixed set of objects, keyed
// "kind/namespace/name" (nodes "node//name").
type objects map[string]Object

var errUnavailable = errors.New("cache unavailable")

func (o objects) get(key string) (Object, bool, error) {
	if key == "pod/ns/broken" || key == "serviceaccount/ns/broken" {
		return Object{}, false, errUnavailable
	}
	obj, ok := o[key]
	return obj, ok, nil
}

func (o objects) ServiceAccount(ns, name string) (Object, bool, error) {
	return o.get("serviceaccount/" + ns + "/" + name)
}
func (o objects) Pod(ns, name string) (Object, bool, error) { return o.get("pod/" + ns + "/" + name) }
func (o objects) Secret(ns, name string) (Object, bool, error) {
	return o.get("secret/" + ns + "/" + name)
}
func (o objects) Node(name string) (Object, bool, error) { return o.get("node//" + name) }

func TestCheckBound(t *testing.T) {
	now := testNow
	live := objects{
		"serviceaccount/ns/sa":      {UID: "sa-uid"},
		"serviceaccount/ns/leaving": {UID: "l-uid", DeletionTimestamp: now.Add(-61 * time.Second)},
		"serviceaccount/ns/going":   {UID: "g-uid", DeletionTimestamp: now.Add(-59 * time.Second)},
		"pod/ns/p":                  {UID: "p-uid"},
		"pod/ns/in-grace":           {UID: "pg-uid", DeletionTimestamp: now.Add(20 * time.Second)},
		"pod/ns/just-gone":          {UID: "pj-uid", DeletionTimestamp: now.Add(-59 * time.Second)},
		"pod/ns/gone":               {UID: "pgone-uid", DeletionTimestamp: now.Add(-61 * time.Second)},
		"secret/ns/s":               {UID: "s-uid"},
		"secret/ns/deleted":         {UID: "sd-uid", DeletionTimestamp: now.Add(-time.Hour)},
		"node//n":                   {UID: "n-uid"},
		"node//drained":             {UID: "nd-uid", DeletionTimestamp: now.Add(-2 * time.Minute)},
	}
	claims := func(sa Ref, edit func(c *Claims)) *Claims {
		c := &Claims{Namespace: "ns", ServiceAccount: sa}
		if edit != nil {
			edit(c)
		}
		return c
	}
	sa := Ref{Name: "sa", UID: "sa-uid"}
	tests := []struct {
		name    string
		claims  *Claims
		wantErr error
		wantMsg string
	}{
		{name: "service account", claims: claims(sa, nil)},
		{name: "service account gone", claims: claims(Ref{"missing", "m-uid"}, nil), wantErr: ErrInvalidated, wantMsg: `serviceaccounts "missing" not found`},
		{name: "service account recreated", claims: claims(Ref{"sa", "old-uid"}, nil), wantErr: ErrInvalidated,
			wantMsg: "service account UID (sa-uid) does not match claim (old-uid)"},
		{name: "service account deleted beyond the leeway", claims: claims(Ref{"leaving", "l-uid"}, nil), wantErr: ErrInvalidated,
			wantMsg: "service account ns/leaving has been deleted"},
		{name: "service account deleted within the leeway", claims: claims(Ref{"going", "g-uid"}, nil)},
		{name: "service account lookup fails", claims: claims(Ref{"broken", "b-uid"}, nil), wantErr: errUnavailable},
		{name: "pod", claims: claims(sa, func(c *Claims) { c.Pod = &Ref{"p", "p-uid"} })},
		{name: "pod in its grace period", claims: claims(sa, func(c *Claims) { c.Pod = &Ref{"in-grace", "pg-uid"} })},
		{name: "pod past its grace period within the leeway", claims: claims(sa, func(c *Claims) { c.Pod = &Ref{"just-gone", "pj-uid"} })},
		{name: "pod past its grace period and the leeway", claims: claims(sa, func(c *Claims) { c.Pod = &Ref{"gone", "pgone-uid"} }),
			wantErr: ErrInvalidated, wantMsg: "service account token has been invalidated"},
		{name: "pod gone", claims: claims(sa, func(c *Claims) { c.Pod = &Ref{"other", "o-uid"} }),
			wantErr: ErrInvalidated, wantMsg: "service account token has been invalidated"},
		{name: "pod recreated", claims: claims(sa, func(c *Claims) { c.Pod = &Ref{"p", "old"} }),
			wantErr: ErrInvalidated, wantMsg: "pod UID (p-uid) does not match service account pod ref claim (old)"},
		{name: "pod lookup fails", claims: claims(sa, func(c *Claims) { c.Pod = &Ref{"broken", "x"} }), wantErr: errUnavailable},
		{name: "pod on a deleted node: the node is not checked", claims: claims(sa, func(c *Claims) {
			c.Pod, c.Node = &Ref{"p", "p-uid"}, &Ref{"drained", "nd-uid"}
		})},
		{name: "secret", claims: claims(sa, func(c *Claims) { c.Secret = &Ref{"s", "s-uid"} })},
		{name: "secret recreated", claims: claims(sa, func(c *Claims) { c.Secret = &Ref{"s", "old"} }),
			wantErr: ErrInvalidated, wantMsg: "secret UID (s-uid) does not match service account secret ref claim (old)"},
		{name: "secret deleted", claims: claims(sa, func(c *Claims) { c.Secret = &Ref{"deleted", "sd-uid"} }), wantErr: ErrInvalidated},
		{name: "node", claims: claims(sa, func(c *Claims) { c.Node = &Ref{"n", "n-uid"} })},
		{name: "node recreated", claims: claims(sa, func(c *Claims) { c.Node = &Ref{"n", "old"} }),
			wantErr: ErrInvalidated, wantMsg: "node UID (n-uid) does not match service account node ref claim (old)"},
		{name: "node deleted", claims: claims(sa, func(c *Claims) { c.Node = &Ref{"drained", "nd-uid"} }), wantErr: ErrInvalidated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckBound(live, tt.claims, now)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("CheckBound = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("CheckBound = %v, want %v", err, tt.wantErr)
			}
			if tt.wantMsg != "" && err.Error() != tt.wantMsg {
				t.Errorf("message = %q, want %q", err.Error(), tt.wantMsg)
			}
		})
	}
	// A bound object's lookup failure invalidates the token, as in kube,
	// and still says why.
	err := CheckBound(live, claims(sa, func(c *Claims) { c.Pod = &Ref{"broken", "x"} }), now)
	if !errors.Is(err, ErrInvalidated) || !errors.Is(err, errUnavailable) {
		t.Errorf("CheckBound = %v, want ErrInvalidated and the lookup's error", err)
	}
}

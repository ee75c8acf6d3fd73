package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Token is a fencing token: the lease's leaseTransitions when this
// leader acquired it. Every acquisition by a Setpoint elector writes a
// larger value than the lease held before (client-go's candidates do the
// same when the holder changes), so a later leader always has a larger
// token than an earlier one.
//
// Why it is needed: leadership ends when the leader's clock says so, but
// a leader paused at the wrong moment (a long GC, a stopped VM, a network
// that delivers a request late) can still send a write after a newer
// leader has started. The lease cannot stop that write; the object it
// lands on can, if it remembers the largest token that wrote it and
// refuses smaller ones. Fence does that for Kubernetes objects through an
// annotation, and the resourceVersion precondition of an Update makes the
// check and the write one atomic step:
//
//	tok, _ := leaderelection.TokenFrom(ctx)     // ctx from OnStartedLeading
//	obj := read the object                      // Get
//	if err := leaderelection.Fence(obj, tok); err != nil {
//		return err                           // a newer leader wrote it: stop
//	}
//	change obj; Update(obj)                     // 409 Conflict: read again and retry
//
// A deposed leader then either reads the newer token and gets ErrFenced,
// or its Update carries a resourceVersion the newer leader's write
// replaced and gets a 409. Systems outside Kubernetes can do the same
// with the token as a column, a header or an etcd comparison.
//
// The guarantee holds while the Lease object lives: deleting it restarts
// the count at zero.
type Token int64

// TokenAnnotation is where Fence keeps the largest token that wrote an
// object.
const TokenAnnotation = "leaderelection.setpoint.dev/fencing-token"

// ErrFenced is what Fence returns (wrapped in a *FencedError) when a
// newer leader has already written the object.
var ErrFenced = errors.New("leaderelection: a newer leader has written this object")

// FencedError says which token was refused and which newer one won.
type FencedError struct {
	Token, Newer Token
}

func (e *FencedError) Error() string {
	return fmt.Sprintf("leaderelection: fencing token %d refused, the object was written with token %d", e.Token, e.Newer)
}

// Is makes errors.Is(err, ErrFenced) true.
func (e *FencedError) Is(target error) bool { return target == ErrFenced }

// Fence stamps obj with tok unless obj already carries a larger token,
// in which case it returns a *FencedError and leaves obj alone. Write obj
// back with its resourceVersion for the check to mean anything.
func Fence(obj metav1.Object, tok Token) error {
	ann := obj.GetAnnotations()
	if s, ok := ann[TokenAnnotation]; ok {
		seen, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("leaderelection: annotation %s=%q: %w", TokenAnnotation, s, err)
		}
		if Token(seen) > tok {
			return &FencedError{Token: tok, Newer: Token(seen)}
		}
	}
	if ann == nil {
		ann = map[string]string{}
	}
	ann[TokenAnnotation] = strconv.FormatInt(int64(tok), 10)
	obj.SetAnnotations(ann)
	return nil
}

type tokenKey struct{}

func withToken(ctx context.Context, t Token) context.Context {
	return context.WithValue(ctx, tokenKey{}, t)
}

// TokenFrom returns the fencing token of the term whose OnStartedLeading
// got ctx (or a context derived from it).
func TokenFrom(ctx context.Context) (Token, bool) {
	t, ok := ctx.Value(tokenKey{}).(Token)
	return t, ok
}

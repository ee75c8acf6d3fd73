package serviceaccount

import (
	"fmt"
	"time"
)

// Getter looks up the objects a token names, for CheckBound. Each
// method reports found=false when the object does not exist, and an
// error only when it could not be looked up. A server hands one backed
// by its cache (kube-apiserver reads its informers, then the API).
type Getter interface {
	ServiceAccount(namespace, name string) (obj Object, found bool, err error)
	Pod(namespace, name string) (obj Object, found bool, err error)
	Secret(namespace, name string) (obj Object, found bool, err error)
	Node(name string) (obj Object, found bool, err error)
}

// Object is what CheckBound needs of an object: which incarnation it is
// and whether it is being deleted.
type Object struct {
	UID string
	// DeletionTimestamp is metadata.deletionTimestamp, zero while the
	// object is not being deleted.
	DeletionTimestamp time.Time
}

// deletedBefore reports whether o's deletion started before t.
func (o Object) deletedBefore(t time.Time) bool {
	return !o.DeletionTimestamp.IsZero() && o.DeletionTimestamp.Before(t)
}

// CheckBound is the rest of kube-apiserver's validation of a token whose
// signature, audience and times Validate accepted: its service account,
// and the Secret, Pod or Node it is bound to, must still exist with the
// UIDs in the token, and not have been deleting for longer than Leeway.
// (A pod's deletionTimestamp is the end of its grace period, so the
// pod's tokens keep working through the grace period and one leeway
// more.) The node a pod-bound token records is not checked, as in kube;
// a token bound to a node alone checks the node.
//
// Refusals match ErrInvalidated, with kube's words; a Getter's error
// about the service account is returned as it is (kube does the same),
// and about a bound object matches both ErrInvalidated and the Getter's
// error.
func CheckBound(g Getter, c *Claims, now time.Time) error {
	deletedBefore := now.Add(-Leeway)
	ns, sa := c.Namespace, c.ServiceAccount

	obj, found, err := g.ServiceAccount(ns, sa.Name)
	switch {
	case err != nil:
		return err
	case !found:
		return refuse(ErrInvalidated, fmt.Sprintf("serviceaccounts %q not found", sa.Name))
	case obj.UID != sa.UID:
		return refuse(ErrInvalidated, fmt.Sprintf("service account UID (%s) does not match claim (%s)", obj.UID, sa.UID))
	case obj.deletedBefore(deletedBefore):
		return refuse(ErrInvalidated, fmt.Sprintf("service account %s/%s has been deleted", ns, sa.Name))
	}

	if ref := c.Secret; ref != nil {
		if err := checkRef(ref, "secret", "service account secret ref claim", deletedBefore,
			func() (Object, bool, error) { return g.Secret(ns, ref.Name) }); err != nil {
			return err
		}
	}
	if ref := c.Pod; ref != nil {
		if err := checkRef(ref, "pod", "service account pod ref claim", deletedBefore,
			func() (Object, bool, error) { return g.Pod(ns, ref.Name) }); err != nil {
			return err
		}
	}
	if ref := c.Node; ref != nil && c.Pod == nil {
		if err := checkRef(ref, "node", "service account node ref claim", deletedBefore,
			func() (Object, bool, error) { return g.Node(ref.Name) }); err != nil {
			return err
		}
	}
	return nil
}

// checkRef checks one bound object; what names it in a UID mismatch
// follows kube's message ("pod UID (x) does not match service account
// pod ref claim (y)").
func checkRef(ref *Ref, what, claim string, deletedBefore time.Time, get func() (Object, bool, error)) error {
	const invalidated = "service account token has been invalidated"
	obj, found, err := get()
	switch {
	case err != nil:
		return &tokenError{kind: ErrInvalidated, msg: invalidated, cause: err}
	case !found:
		return refuse(ErrInvalidated, invalidated)
	case obj.UID != ref.UID:
		return refuse(ErrInvalidated, fmt.Sprintf("%s UID (%s) does not match %s (%s)", what, obj.UID, claim, ref.UID))
	case obj.deletedBefore(deletedBefore):
		return refuse(ErrInvalidated, invalidated)
	}
	return nil
}

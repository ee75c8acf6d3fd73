package registry

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrConflict is what a Budgets write returns when the budget changed
// since it was read: the caller reads it again and retries.
var ErrConflict = errors.New("the object has been modified")

// Budgets is what an eviction reads and writes of the objects that
// limit it (PodDisruptionBudgets); the store implements it over the
// resource EvictStrategy.BudgetResource names.
type Budgets interface {
	// List returns the budgets of namespace ns.
	List(ctx context.Context, ns string) ([]map[string]any, error)
	// Get returns one budget.
	Get(ctx context.Context, ns, name string) (map[string]any, error)
	// UpdateStatus writes budget's status; its resourceVersion is a
	// precondition, and a stale one is ErrConflict.
	UpdateStatus(ctx context.Context, budget map[string]any) error
}

// EvictStrategy is implemented by kinds whose objects may be evicted
// (Pods): a create on their eviction subresource deletes the object
// unless a disruption budget forbids it.
type EvictStrategy interface {
	// BudgetResource is the resource whose objects limit evictions.
	BudgetResource() schema.GroupVersionResource
	// EvictsFreely reports whether obj is deleted without consulting a
	// budget (it is not running), and whether that delete must be
	// conditional on obj's resourceVersion (so an object that started
	// meanwhile is not deleted unchecked).
	EvictsFreely(obj map[string]any) (free, pin bool)
	// ChargeBudgets charges the eviction of obj, at now, to the budget
	// that covers it, or refuses it (a *TooManyRequestsError, an
	// *InternalRefusalError, a *ForbiddenError). pin says the delete
	// must be conditional on obj's resourceVersion; budget names the
	// budget consulted.
	ChargeBudgets(ctx context.Context, now time.Time, obj map[string]any, budgets Budgets, dryRun bool) (pin bool, budget string, err error)
	// MarkEvicted records on obj, through its status, that it is being
	// evicted at now.
	MarkEvicted(now time.Time, obj map[string]any)
}

// TooManyRequestsError refuses a request that may succeed later (an
// eviction a disruption budget forbids now): 429 TooManyRequests with
// RetryAfterSeconds and, when set, a cause of type CauseType.
type TooManyRequestsError struct {
	Message           string
	RetryAfterSeconds int32
	CauseType         string
	CauseMessage      string
}

func (e *TooManyRequestsError) Error() string { return e.Message }

// InternalRefusalError refuses a request the server cannot serve for
// the object's state (a pod two budgets cover): 500 with Message and
// no reason, as kube-apiserver answers it.
type InternalRefusalError struct {
	Message string
}

func (e *InternalRefusalError) Error() string { return e.Message }

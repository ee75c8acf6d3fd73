package fsm

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// walkResult is how a walk ended.
type walkResult struct {
	// finished: a state returned Done.
	finished bool
	result   reconcile.Result
	err      error
	// broken is Ready's reason when the machine, not a state, ended
	// the walk.
	broken string
}

// walk runs g's states on obj from the first, setting each state's
// condition on obj as it goes (later states see earlier verdicts), and
// then the conditions of the states it did not reach. It writes
// nothing to the server.
func (g *graph[T]) walk(ctx context.Context, obj T, log *slog.Logger) walkResult {
	gen := obj.GetGeneration()
	// A copy: obj may share its slice with a cache's object, which the
	// in-place edits of meta.SetStatusCondition would corrupt.
	conds := slices.Clone(obj.GetConditions())
	set := func(c metav1.Condition) {
		meta.SetStatusCondition(&conds, c)
		obj.SetConditions(conds)
	}
	visited := make([]bool, len(g.states))
	var w walkResult
	i := 0
	for steps := 1; ; steps++ {
		st := &g.states[i]
		out := st.Run(ctx, obj)
		visited[i] = true
		log.DebugContext(ctx, "state ran", "state", st.Name, "outcome", out.kind, "next", out.next, "status", out.status, "reason", out.reason)
		if out.kind == kindNone || (out.kind == kindFail && out.err == nil) {
			set(metav1.Condition{Type: st.Condition, Status: metav1.ConditionUnknown, Reason: ReasonNoOutcome, Message: "the state returned no outcome", ObservedGeneration: gen})
			w.err = reconcile.TerminalError(&StateError{State: st.Name, Err: ErrNoOutcome})
			w.broken = ReasonNoOutcome
			break
		}
		set(out.condition(st.Condition, gen))
		if out.kind != kindNext {
			switch out.kind {
			case kindDone:
				w.finished = true
			case kindWait:
				w.result.RequeueAfter = out.after
			case kindFail:
				w.err = &StateError{State: st.Name, Err: out.err}
			}
			break
		}
		j, declared := g.index[out.next]
		if !declared || !slices.Contains(st.Next, out.next) {
			// A code bug, not a state of the world: retrying cannot help.
			w.err = reconcile.TerminalError(&StateError{State: st.Name, Err: fmt.Errorf("%w to %q", ErrUndeclaredTransition, out.next)})
			w.broken = ReasonUndeclaredTransition
			break
		}
		if steps >= g.maxSteps {
			w.err = &StateError{State: st.Name, Err: fmt.Errorf("%w: %d states ran without the walk ending", ErrTooManySteps, steps)}
			w.broken = ReasonTooManySteps
			break
		}
		i = j
	}
	for i, st := range g.states {
		switch {
		case visited[i]:
		case w.finished:
			meta.RemoveStatusCondition(&conds, st.Condition)
		default:
			set(metav1.Condition{Type: st.Condition, Status: metav1.ConditionUnknown, Reason: ReasonPending, Message: "the last walk stopped before this state", ObservedGeneration: gen})
		}
	}
	obj.SetConditions(conds)
	return w
}

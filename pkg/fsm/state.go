package fsm

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// Object is what a Machine reconciles: an API object whose status holds
// standard conditions.
type Object interface {
	client.Object
	GetConditions() []metav1.Condition
	SetConditions([]metav1.Condition)
}

// State is one step of a walk.
type State[T Object] struct {
	// Name identifies the state in Next, Transitions, logs and errors.
	Name string
	// Condition is the type of the status condition the state owns;
	// empty is Name.
	Condition string
	// Next lists the states Run may go to. Empty: the state only ends
	// walks.
	Next []string
	// Run decides. It may read the world and change it (create a
	// Deployment, call a cloud API), and must be idempotent: it runs on
	// every reconcile that reaches it. It must not write obj itself;
	// the Machine writes obj's status.
	Run func(ctx context.Context, obj T) Outcome
}

// Transition is a declared edge of a Machine's graph.
type Transition struct {
	From, To string
}

// graph is one validated set of states: the apply states or the
// deletion states.
type graph[T Object] struct {
	states   []State[T] // states[0] is where walks start
	index    map[string]int
	maxSteps int
}

// newGraph checks states and indexes them. seen holds the state names
// and condition types taken so far, across graphs: each must be unique
// in a Machine, or two states would fight over one condition.
func newGraph[T Object](what string, states []State[T], maxSteps int, seen map[string]string) (*graph[T], error) {
	if len(states) == 0 {
		return nil, fmt.Errorf("%w: no %s states", ErrInvalidMachine, what)
	}
	g := &graph[T]{states: slices.Clone(states), index: make(map[string]int, len(states)), maxSteps: maxSteps}
	if g.maxSteps <= 0 {
		g.maxSteps = 2 * len(states)
	}
	claim := func(key, owner string) error {
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%w: %s and %s", ErrInvalidMachine, prev, owner)
		}
		seen[key] = owner
		return nil
	}
	for i := range g.states {
		st := &g.states[i]
		if st.Name == "" {
			return nil, fmt.Errorf("%w: %s state %d has no name", ErrInvalidMachine, what, i)
		}
		if st.Run == nil {
			return nil, fmt.Errorf("%w: state %s has no Run", ErrInvalidMachine, st.Name)
		}
		if st.Condition == "" {
			st.Condition = st.Name
		}
		if msgs := validation.IsQualifiedName(st.Condition); len(msgs) > 0 {
			return nil, fmt.Errorf("%w: state %s: condition type %q: %s", ErrInvalidMachine, st.Name, st.Condition, strings.Join(msgs, "; "))
		}
		if st.Condition == ReadyCondition {
			return nil, fmt.Errorf("%w: state %s: condition %s is derived, no state may own it", ErrInvalidMachine, st.Name, ReadyCondition)
		}
		if err := claim("state "+st.Name, "state "+st.Name); err != nil {
			return nil, err
		}
		if err := claim("condition "+st.Condition, "the condition of state "+st.Name); err != nil {
			return nil, err
		}
		g.index[st.Name] = i
	}
	for _, st := range g.states {
		for _, n := range st.Next {
			if _, ok := g.index[n]; !ok {
				return nil, fmt.Errorf("%w: state %s goes to %q, not a %s state", ErrInvalidMachine, st.Name, n, what)
			}
		}
	}
	if dead := g.unreachable(); len(dead) > 0 {
		return nil, fmt.Errorf("%w: %s states %v cannot be reached from %s", ErrInvalidMachine, what, dead, g.states[0].Name)
	}
	return g, nil
}

// unreachable returns the states no walk can reach, in declaration
// order: dead code, almost certainly a missing Next.
func (g *graph[T]) unreachable() []string {
	reached := make([]bool, len(g.states))
	reached[0] = true
	stack := []int{0}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, n := range g.states[i].Next {
			if j := g.index[n]; !reached[j] {
				reached[j] = true
				stack = append(stack, j)
			}
		}
	}
	var dead []string
	for i, ok := range reached {
		if !ok {
			dead = append(dead, g.states[i].Name)
		}
	}
	return dead
}

func (g *graph[T]) transitions() []Transition {
	var out []Transition
	for _, st := range g.states {
		for _, n := range st.Next {
			out = append(out, Transition{From: st.Name, To: n})
		}
	}
	return out
}

func (g *graph[T]) conditionTypes() []string {
	out := make([]string, len(g.states))
	for i, st := range g.states {
		out[i] = st.Condition
	}
	return out
}

package controller

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	fsmv1 "github.com/setpoint-dev/setpoint/examples/fsm/api/v1"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/fsm"
)

// State names; each is also the type of the condition the state owns.
const (
	StateValidated     = "Validated"
	StateProvisioned   = "Provisioned"
	StatePublished     = "Published"
	StateUnpublished   = "Unpublished"
	StateDeprovisioned = "Deprovisioned"
)

// Reasons the states give.
const (
	ReasonValidSpec        = "ValidSpec"
	ReasonInvalidSpec      = "InvalidSpec"
	ReasonConfigMapWritten = "ConfigMapWritten"
	ReasonWriteFailed      = "WriteFailed"
	ReasonPublished        = "Published"
	ReasonSuspended        = "Suspended"
	ReasonWithdrawn        = "Withdrawn"
	ReasonConfigMapDeleted = "ConfigMapDeleted"
)

// states is the graph a live Pipeline walks.
func states(c client.Interface) []fsm.State[*fsmv1.Pipeline] {
	return []fsm.State[*fsmv1.Pipeline]{
		{Name: StateValidated, Next: []string{StateProvisioned}, Run: validate},
		{Name: StateProvisioned, Next: []string{StatePublished}, Run: func(ctx context.Context, p *fsmv1.Pipeline) fsm.Outcome {
			if err := writeStages(ctx, c, p); err != nil {
				return fsm.Fail(err, ReasonWriteFailed)
			}
			return fsm.Next(StatePublished, ReasonConfigMapWritten,
				fmt.Sprintf("configmap %s holds %d stages", ConfigMapName(p), len(p.Spec.Stages)))
		}},
		{Name: StatePublished, Run: func(ctx context.Context, p *fsmv1.Pipeline) fsm.Outcome {
			if err := setPublished(ctx, c, p, !p.Spec.Suspend); err != nil {
				return fsm.Fail(err, ReasonWriteFailed)
			}
			if p.Spec.Suspend {
				// Nothing to wait for but the user: the next event about
				// the Pipeline (clearing spec.suspend) walks again.
				return fsm.Wait(0, ReasonSuspended, "spec.suspend is set; runners do not see the pipeline")
			}
			return fsm.Done(ReasonPublished, fmt.Sprintf("runners see configmap %s", ConfigMapName(p)))
		}},
	}
}

// deletionStates is the graph a Pipeline being deleted walks.
func deletionStates(c client.Interface) []fsm.State[*fsmv1.Pipeline] {
	return []fsm.State[*fsmv1.Pipeline]{
		{Name: StateUnpublished, Next: []string{StateDeprovisioned}, Run: func(ctx context.Context, p *fsmv1.Pipeline) fsm.Outcome {
			if err := setPublished(ctx, c, p, false); err != nil && !client.IsNotFound(err) {
				return fsm.Fail(err, ReasonWriteFailed)
			}
			return fsm.Next(StateDeprovisioned, ReasonWithdrawn, "runners no longer see the pipeline")
		}},
		{Name: StateDeprovisioned, Run: func(ctx context.Context, p *fsmv1.Pipeline) fsm.Outcome {
			if err := deleteConfigMap(ctx, c, p); err != nil {
				return fsm.Fail(err, ReasonWriteFailed)
			}
			return fsm.Done(ReasonConfigMapDeleted, fmt.Sprintf("configmap %s is gone", ConfigMapName(p)))
		}},
	}
}

// validate checks the stages. A bad spec is the user's to fix, not an
// error to retry: the walk waits for the next change of the Pipeline.
func validate(_ context.Context, p *fsmv1.Pipeline) fsm.Outcome {
	if len(p.Spec.Stages) == 0 {
		return fsm.Wait(0, ReasonInvalidSpec, "spec.stages is empty")
	}
	seen := map[string]bool{}
	for i, s := range p.Spec.Stages {
		if msgs := validation.IsDNS1123Label(s); len(msgs) > 0 {
			return fsm.Wait(0, ReasonInvalidSpec, fmt.Sprintf("spec.stages[%d] %q: %s", i, s, strings.Join(msgs, "; ")))
		}
		if seen[s] {
			return fsm.Wait(0, ReasonInvalidSpec, fmt.Sprintf("spec.stages[%d] %q is a duplicate", i, s))
		}
		seen[s] = true
	}
	return fsm.Next(StateProvisioned, ReasonValidSpec, fmt.Sprintf("%d stages", len(p.Spec.Stages)))
}

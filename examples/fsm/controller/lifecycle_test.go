package controller_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	fsmv1 "github.com/setpoint-dev/setpoint/examples/fsm/api/v1"
	pipelinecontroller "github.com/setpoint-dev/setpoint/examples/fsm/controller"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/finalizer"
	"github.com/setpoint-dev/setpoint/pkg/fsm"
)

// runOperator runs the Pipeline controller as the binary sets it up.
func runOperator(t *testing.T, e *env) {
	t.Helper()
	e.StartManager(t, pipelinecontroller.Setup, envtest.WithLogs(&envtest.Logs{}, slog.LevelDebug))
}

func (e *env) createPipeline(t *testing.T, name string, stages []string, finalizers ...string) *fsmv1.Pipeline {
	t.Helper()
	p := &fsmv1.Pipeline{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Finalizers: finalizers},
		Spec:       fsmv1.PipelineSpec{Stages: stages},
	}
	if err := e.client.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// getPipeline reads a Pipeline from the server; nil once it is gone.
func (e *env) getPipeline(t *testing.T, p *fsmv1.Pipeline) *fsmv1.Pipeline {
	t.Helper()
	got := &fsmv1.Pipeline{}
	err := e.client.Get(t.Context(), types.NamespacedName{Namespace: p.Namespace, Name: p.Name}, got)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// patchSpec merges spec into p's spec.
func (e *env) patchSpec(t *testing.T, p *fsmv1.Pipeline, spec map[string]any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.client.Patch(t.Context(), &fsmv1.Pipeline{ObjectMeta: p.ObjectMeta}, types.MergePatchType, body); err != nil {
		t.Fatal(err)
	}
}

// getConfigMap reads p's ConfigMap; nil when there is none.
func (e *env) getConfigMap(t *testing.T, p *fsmv1.Pipeline) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	err := e.client.Get(t.Context(), types.NamespacedName{Namespace: p.Namespace, Name: pipelinecontroller.ConfigMapName(p)}, cm)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// conditions is what a test expects of a status: type -> "Status/Reason".
type conditions map[string]string

// summary renders p's conditions as conditions, keeping only those
// written at p's generation (older ones are stale).
func summary(p *fsmv1.Pipeline) conditions {
	out := conditions{}
	for _, c := range p.Status.Conditions {
		if c.ObservedGeneration == p.Generation {
			out[c.Type] = string(c.Status) + "/" + c.Reason
		}
	}
	return out
}

func (c conditions) String() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	s := ""
	for _, k := range keys {
		s += fmt.Sprintf("%s=%s ", k, c[k])
	}
	return s
}

// waitConditions waits until p's status holds exactly want, at p's
// current generation, and returns p as it was then.
func (e *env) waitConditions(t *testing.T, p *fsmv1.Pipeline, want conditions) *fsmv1.Pipeline {
	t.Helper()
	var got *fsmv1.Pipeline
	envtest.EventuallyTrue(t, "conditions "+want.String()+"on "+p.Name, func() bool {
		got = e.getPipeline(t, p)
		return got != nil && summary(got).String() == want.String() && len(got.Status.Conditions) == len(want)
	})
	return got
}

var allReady = conditions{
	pipelinecontroller.StateValidated:   "True/" + pipelinecontroller.ReasonValidSpec,
	pipelinecontroller.StateProvisioned: "True/" + pipelinecontroller.ReasonConfigMapWritten,
	pipelinecontroller.StatePublished:   "True/" + pipelinecontroller.ReasonPublished,
	fsm.ReadyCondition:                  "True/" + fsm.ReasonReady,
}

// TestLifecycle walks one Pipeline through every state: provisioned
// and published, suspended, changed, invalid, and deleted.
func TestLifecycle(t *testing.T) {
	e := newEnv(t)
	runOperator(t, e)

	p := e.createPipeline(t, "release", []string{"build", "test", "deploy"})
	got := e.waitConditions(t, p, allReady)
	if !finalizer.Has(got, pipelinecontroller.Finalizer) {
		t.Errorf("finalizers = %v, want %s", got.Finalizers, pipelinecontroller.Finalizer)
	}
	cm := e.getConfigMap(t, p)
	if cm == nil || cm.Data[pipelinecontroller.StagesKey] != "build\ntest\ndeploy" || cm.Labels[pipelinecontroller.PublishedLabel] != "true" {
		t.Fatalf("ConfigMap = %+v, want the stages, published", cm)
	}

	// Suspended: published no more, the earlier states still hold.
	e.patchSpec(t, p, map[string]any{"suspend": true})
	e.waitConditions(t, p, conditions{
		pipelinecontroller.StateValidated:   "True/" + pipelinecontroller.ReasonValidSpec,
		pipelinecontroller.StateProvisioned: "True/" + pipelinecontroller.ReasonConfigMapWritten,
		pipelinecontroller.StatePublished:   "False/" + pipelinecontroller.ReasonSuspended,
		fsm.ReadyCondition:                  "False/" + pipelinecontroller.ReasonSuspended,
	})
	if cm := e.getConfigMap(t, p); cm == nil || cm.Labels[pipelinecontroller.PublishedLabel] != "" {
		t.Errorf("suspended pipeline's ConfigMap = %+v, want it without %s", cm, pipelinecontroller.PublishedLabel)
	}

	// Resumed with other stages: provisioned again and published.
	e.patchSpec(t, p, map[string]any{"suspend": false, "stages": []string{"build", "ship"}})
	e.waitConditions(t, p, allReady)
	cm = e.getConfigMap(t, p)
	if cm == nil || cm.Data[pipelinecontroller.StagesKey] != "build\nship" || cm.Labels[pipelinecontroller.PublishedLabel] != "true" {
		t.Errorf("ConfigMap after the change = %+v, want the new stages, published", cm)
	}

	// Invalid: the walk stops at the first state; the others are
	// pending and Ready says why.
	e.patchSpec(t, p, map[string]any{"stages": []string{"build", "build"}})
	got = e.waitConditions(t, p, conditions{
		pipelinecontroller.StateValidated:   "False/" + pipelinecontroller.ReasonInvalidSpec,
		pipelinecontroller.StateProvisioned: "Unknown/" + fsm.ReasonPending,
		pipelinecontroller.StatePublished:   "Unknown/" + fsm.ReasonPending,
		fsm.ReadyCondition:                  "False/" + pipelinecontroller.ReasonInvalidSpec,
	})
	if c := meta.FindStatusCondition(got.Status.Conditions, fsm.ReadyCondition); c.Message != `Validated: spec.stages[1] "build" is a duplicate` {
		t.Errorf("Ready's message = %q", c.Message)
	}

	if err := e.client.Delete(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	envtest.EventuallyTrue(t, "the Pipeline to be deleted", func() bool { return e.getPipeline(t, p) == nil })
	if cm := e.getConfigMap(t, p); cm != nil {
		t.Errorf("ConfigMap still there after the Pipeline went: %+v", cm)
	}
}

// TestDeletionStates: once the deletion states are done the operator's
// finalizer goes and the status shows the deletion walk, while another
// finalizer still holds the Pipeline.
func TestDeletionStates(t *testing.T) {
	const hold = "test.example.com/hold"
	e := newEnv(t)
	runOperator(t, e)
	p := e.createPipeline(t, "held", []string{"build"}, hold)
	got := e.waitConditions(t, p, allReady)
	if err := e.client.Delete(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	envtest.EventuallyTrue(t, "the operator's finalizer to go", func() bool {
		got = e.getPipeline(t, p)
		return !finalizer.Has(got, pipelinecontroller.Finalizer)
	})
	want := conditions{
		pipelinecontroller.StateUnpublished:   "True/" + pipelinecontroller.ReasonWithdrawn,
		pipelinecontroller.StateDeprovisioned: "True/" + pipelinecontroller.ReasonConfigMapDeleted,
		fsm.ReadyCondition:                    "False/" + fsm.ReasonDeleting,
	}
	have := summary(got)
	for typ, s := range want {
		if have[typ] != s {
			t.Errorf("condition %s = %q, want %q (all: %v)", typ, have[typ], s, have)
		}
	}
	if cm := e.getConfigMap(t, p); cm != nil {
		t.Errorf("ConfigMap still there after the deletion states: %+v", cm)
	}
	if _, err := finalizer.Remove(t.Context(), e.client, got, hold); err != nil {
		t.Fatal(err)
	}
	envtest.EventuallyTrue(t, "the Pipeline to be deleted", func() bool { return e.getPipeline(t, p) == nil })
}

package controller

import (
	"context"
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	fsmv1 "github.com/setpoint-dev/setpoint/examples/fsm/api/v1"
	"github.com/setpoint-dev/setpoint/pkg/client"
)

const (
	// StagesKey is the ConfigMap key holding the stages, one a line.
	StagesKey = "stages"
	// PublishedLabel on a ConfigMap is how runners find the pipelines
	// to run.
	PublishedLabel = "fsm.example.com/published"
)

// ConfigMapName is the name of the ConfigMap a Pipeline owns, in its
// namespace.
func ConfigMapName(p *fsmv1.Pipeline) string { return p.Name + "-pipeline" }

// The states write with merge patches, not updates: one walk may write
// the ConfigMap twice (stages, then the label) and the cached copy it
// reads does not show the first write yet, so an update conditional on
// that copy's resourceVersion would conflict.

// writeStages creates p's ConfigMap or patches its stages, writing only
// when the cached copy differs.
func writeStages(ctx context.Context, c client.Interface, p *fsmv1.Pipeline) error {
	stages := strings.Join(p.Spec.Stages, "\n")
	cm, err := getConfigMap(ctx, c, p)
	if err != nil {
		return err
	}
	if cm == nil {
		yes := true
		cm = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: p.Namespace, Name: ConfigMapName(p),
				// Maps the ConfigMap's events to the Pipeline (Owns).
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: fsmv1.GroupVersion.String(), Kind: "Pipeline", Name: p.Name, UID: p.UID,
					Controller: &yes, BlockOwnerDeletion: &yes,
				}},
			},
			Data: map[string]string{StagesKey: stages},
		}
		err := c.Create(ctx, cm)
		if !client.IsAlreadyExists(err) {
			return err
		}
		// Created since the cache looked: patch it like any other.
	} else if v, ok := cm.Data[StagesKey]; ok && v == stages {
		return nil
	}
	return patch(ctx, c, p, map[string]any{"data": map[string]any{StagesKey: stages}})
}

// setPublished puts PublishedLabel on p's ConfigMap or takes it off.
func setPublished(ctx context.Context, c client.Interface, p *fsmv1.Pipeline, published bool) error {
	cm, err := getConfigMap(ctx, c, p)
	if err != nil {
		return err
	}
	if cm != nil && (cm.Labels[PublishedLabel] == "true") == published {
		return nil
	}
	var label any // null removes it
	if published {
		label = "true"
	}
	return patch(ctx, c, p, map[string]any{"metadata": map[string]any{"labels": map[string]any{PublishedLabel: label}}})
}

// deleteConfigMap deletes p's ConfigMap; one already gone is fine.
func deleteConfigMap(ctx context.Context, c client.Interface, p *fsmv1.Pipeline) error {
	err := c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: ConfigMapName(p)}})
	if client.IsNotFound(err) {
		return nil
	}
	return err
}

// getConfigMap reads p's ConfigMap; nil when there is none.
func getConfigMap(ctx context.Context, c client.Interface, p *fsmv1.Pipeline) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	err := c.Get(ctx, types.NamespacedName{Namespace: p.Namespace, Name: ConfigMapName(p)}, cm)
	if client.IsNotFound(err) {
		return nil, nil
	}
	return cm, err
}

func patch(ctx context.Context, c client.Interface, p *fsmv1.Pipeline, body map[string]any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: ConfigMapName(p)}}
	return c.Patch(ctx, cm, types.MergePatchType, data)
}

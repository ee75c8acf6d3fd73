package daemonset

import (
	"bytes"
	"encoding/json"
	"maps"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RevisionData is what a ControllerRevision of ds stores: a strategic
// merge patch that puts ds's template back whole ({"spec":{"template":
// {"$patch":"replace",...}}}), which `kubectl rollout undo` applies.
func RevisionData(ds *appsv1.DaemonSet) ([]byte, error) {
	raw, err := json.Marshal(ds.Spec.Template)
	if err != nil {
		return nil, err
	}
	var template map[string]any
	if err := json.Unmarshal(raw, &template); err != nil {
		return nil, err
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// Matches reports whether rev records ds's current template.
func Matches(ds *appsv1.DaemonSet, rev *appsv1.ControllerRevision) (bool, error) {
	data, err := RevisionData(ds)
	if err != nil {
		return false, err
	}
	return bytes.Equal(data, rev.Data.Raw), nil
}

// History is a DaemonSet's revisions split by its current template.
type History struct {
	// Current record the current template: normally one, several after
	// a race (the newest revision is kept, see Keep).
	Current []*appsv1.ControllerRevision
	// Old record earlier templates.
	Old []*appsv1.ControllerRevision
	// Next is the revision number the current template should have: one
	// past the newest old one.
	Next int64
}

// SplitHistory sorts ds's revisions into current and old.
func SplitHistory(ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision) (History, error) {
	var h History
	for _, r := range revs {
		ok, err := Matches(ds, r)
		if err != nil {
			return History{}, err
		}
		if ok {
			h.Current = append(h.Current, r)
		} else {
			h.Old = append(h.Old, r)
		}
	}
	for _, r := range h.Old {
		h.Next = max(h.Next, r.Revision)
	}
	h.Next++
	return h, nil
}

// Keep is the current revision to keep among duplicates: the one with
// the highest revision number, the last listed on a tie.
func (h History) Keep() *appsv1.ControllerRevision {
	var keep *appsv1.ControllerRevision
	for _, r := range h.Current {
		if keep == nil || r.Revision >= keep.Revision {
			keep = r
		}
	}
	return keep
}

// Snapshot is the revision recording ds's template under hash, numbered
// revision: named <ds>-<hash>, labelled as the template's pods plus the
// hash, annotated as ds, controlled by ds.
func Snapshot(ds *appsv1.DaemonSet, hash string, revision int64) (*appsv1.ControllerRevision, error) {
	data, err := RevisionData(ds)
	if err != nil {
		return nil, err
	}
	lbls := maps.Clone(ds.Spec.Template.Labels)
	if lbls == nil {
		lbls = map[string]string{}
	}
	lbls[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: ds.Name + "-" + hash, Namespace: ds.Namespace, Labels: lbls,
			Annotations:     maps.Clone(ds.Annotations),
			OwnerReferences: []metav1.OwnerReference{controllerRef(ds)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: revision,
	}, nil
}

// Prune picks the old revisions to delete so that at most
// revisionHistoryLimit remain, oldest first, sparing those whose hash a
// pod of ds still carries (live). It may leave more than the limit.
func Prune(ds *appsv1.DaemonSet, old []*appsv1.ControllerRevision, live map[string]bool) []*appsv1.ControllerRevision {
	limit := 10
	if ds.Spec.RevisionHistoryLimit != nil {
		limit = int(*ds.Spec.RevisionHistoryLimit)
	}
	excess := len(old) - limit
	if excess <= 0 {
		return nil
	}
	sorted := append([]*appsv1.ControllerRevision(nil), old...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Revision < sorted[j].Revision })
	var out []*appsv1.ControllerRevision
	for _, r := range sorted {
		if excess == 0 {
			break
		}
		if live[r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]] {
			continue
		}
		out = append(out, r)
		excess--
	}
	return out
}

package statefulset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"sort"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
)

// HashLabel holds a ControllerRevision's hash, as kube's history
// package labels it.
const HashLabel = "controller.kubernetes.io/hash"

// errNoTemplate is a revision whose data holds no pod template.
var errNoTemplate = errors.New("controller revision holds no spec.template")

// Patch is what a StatefulSet's revision records: a strategic merge
// patch that replaces spec.template with set's. Its bytes are those kube
// writes, keys sorted as a JSON object's re-encoding sorts them, so the
// hash, and with it the revision's name, is the one kube would give.
func Patch(set *appsv1.StatefulSet) ([]byte, error) {
	raw, err := json.Marshal(set.Spec.Template)
	if err != nil {
		return nil, err
	}
	var template map[string]any
	if err := json.Unmarshal(raw, &template); err != nil {
		return nil, err
	}
	// kube 1.33's apimachinery writes a template's zero creation time
	// as null; later ones leave it out. The hash covers these bytes.
	meta, _ := template["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		template["metadata"] = meta
	}
	if _, ok := meta["creationTimestamp"]; !ok {
		meta["creationTimestamp"] = nil
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// Hash is kube's hash of a revision's data: FNV-32 of the bytes and
// of the collision count in decimal, the sum printed in decimal and
// encoded with apimachinery's safe alphabet.
func Hash(data []byte, collisionCount int32) string {
	h := fnv.New32()
	h.Write(data)
	h.Write([]byte(strconv.FormatInt(int64(collisionCount), 10)))
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// revisionName is <prefix>-<hash>, the prefix cut to 223 bytes so the
// name stays within 253.
func revisionName(prefix, hash string) string {
	if len(prefix) > 223 {
		prefix = prefix[:223]
	}
	return prefix + "-" + hash
}

// NewRevision is the revision number n of set's template under
// collisionCount: labelled with the template's labels and its hash,
// annotated with set's annotations, controlled by set.
func NewRevision(set *appsv1.StatefulSet, n int64, collisionCount int32) (*appsv1.ControllerRevision, error) {
	patch, err := Patch(set)
	if err != nil {
		return nil, err
	}
	labels := maps.Clone(set.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	hash := Hash(patch, collisionCount)
	labels[HashLabel] = hash
	cr := &appsv1.ControllerRevision{
		Data:     runtime.RawExtension{Raw: patch},
		Revision: n,
	}
	cr.Name = revisionName(set.Name, hash)
	cr.Namespace = set.Namespace
	cr.Labels = labels
	cr.OwnerReferences = append(cr.OwnerReferences, controllerRef(set))
	cr.Annotations = maps.Clone(set.Annotations)
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	return cr, nil
}

// rename gives rev the name its data has under collisionCount.
func rename(set *appsv1.StatefulSet, rev *appsv1.ControllerRevision, collisionCount int32) {
	hash := Hash(rev.Data.Raw, collisionCount)
	rev.Name = revisionName(set.Name, hash)
}

// ApplyRevision is set with the template rev recorded. The patch
// replaces the whole template, so applying it is reading it back.
func ApplyRevision(set *appsv1.StatefulSet, rev *appsv1.ControllerRevision) (*appsv1.StatefulSet, error) {
	var patch struct {
		Spec struct {
			Template *corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(rev.Data.Raw, &patch); err != nil {
		return nil, fmt.Errorf("controller revision %s: %w", rev.Name, err)
	}
	if patch.Spec.Template == nil {
		return nil, fmt.Errorf("controller revision %s: %w", rev.Name, errNoTemplate)
	}
	out := set.DeepCopy()
	out.Spec.Template = *patch.Spec.Template
	return out, nil
}

// SortRevisions orders revisions by number, then creation, then name.
func SortRevisions(revs []*appsv1.ControllerRevision) {
	sort.SliceStable(revs, func(i, j int) bool {
		a, b := revs[i], revs[j]
		if a.Revision != b.Revision {
			return a.Revision < b.Revision
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
}

// equalRevision reports whether two revisions record the same data:
// differing hash labels settle it, otherwise the bytes do.
func equalRevision(a, b *appsv1.ControllerRevision) bool {
	if a == nil || b == nil {
		return a == b
	}
	ha, errA := strconv.ParseInt(a.Labels[HashLabel], 10, 32)
	hb, errB := strconv.ParseInt(b.Labels[HashLabel], 10, 32)
	if errA == nil && errB == nil && uint32(ha) != uint32(hb) {
		return false
	}
	return bytes.Equal(a.Data.Raw, b.Data.Raw)
}

// RevisionChoice is how a pass settles set's update revision: Use an
// existing one as it is, Renumber an older equal one to Number (a
// rollback), or Create a new one.
type RevisionChoice struct {
	Use      *appsv1.ControllerRevision
	Renumber *appsv1.ControllerRevision
	Number   int64
	Create   *appsv1.ControllerRevision
}

// ChooseRevision decides the update revision of set from its revisions,
// sorted, as kube does: the newest if it equals set's template, else
// the newest older one that does, renumbered past the newest, else a
// new one numbered past the newest.
func ChooseRevision(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, collisionCount int32) (RevisionChoice, error) {
	next := int64(1)
	if n := len(revs); n > 0 {
		next = revs[n-1].Revision + 1
	}
	want, err := NewRevision(set, next, collisionCount)
	if err != nil {
		return RevisionChoice{}, err
	}
	var last *appsv1.ControllerRevision
	for _, r := range revs {
		if equalRevision(r, want) {
			last = r
		}
	}
	switch {
	case last != nil && equalRevision(revs[len(revs)-1], last):
		return RevisionChoice{Use: revs[len(revs)-1]}, nil
	case last != nil:
		return RevisionChoice{Renumber: last, Number: next}, nil
	}
	return RevisionChoice{Create: want}, nil
}

// currentRevision is the revision status.currentRevision names, or
// update when none does (a new set).
func currentRevision(set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision, update *appsv1.ControllerRevision) *appsv1.ControllerRevision {
	for _, r := range revs {
		if r.Name == set.Status.CurrentRevision {
			return r
		}
	}
	return update
}

// HistoryToDelete are the revisions to delete so that at most
// revisionHistoryLimit revisions no pod uses, other than the current
// and update ones, remain: the oldest go first. revs must be sorted.
func HistoryToDelete(set *appsv1.StatefulSet, pods []*corev1.Pod, revs []*appsv1.ControllerRevision, current, update *appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	live := map[string]bool{}
	if current != nil {
		live[current.Name] = true
	}
	if update != nil {
		live[update.Name] = true
	}
	for _, p := range pods {
		live[Revision(p)] = true
	}
	var old []*appsv1.ControllerRevision
	for _, r := range revs {
		if !live[r.Name] {
			old = append(old, r)
		}
	}
	limit := 10
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	if limit < 0 || len(old) <= limit {
		return nil
	}
	return old[:len(old)-limit]
}

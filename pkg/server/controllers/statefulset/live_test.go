package statefulset_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
)

// TestLive runs the built-in controllers with a simulated node: a
// StatefulSet of 3 comes up in order, each pod created only once the one
// before it is Ready; a template change rolls the pods from the highest
// ordinal down; a partition holds the lower ordinals at the old
// revision; scaling down removes pods from the highest ordinal, one at
// a time.
func TestLive(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sim", Labels: map[string]string{"setpoint.dev/simulated": "true"}}}
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	three := int32(3)
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    &three,
			ServiceName: "web",
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.25"}}},
			},
		},
	}
	log := watchPods(t, env)
	if err := c.Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "default", Name: "web"}

	// settled waits until the set has want pods, all Ready and at its
	// status's revisions, and returns them by name.
	settled := func(what string, want int32, check func(*appsv1.StatefulSet) error) (*appsv1.StatefulSet, map[string]corev1.Pod) {
		t.Helper()
		got := &appsv1.StatefulSet{}
		var pods map[string]corev1.Pod
		envtest.Eventually(t, what, func() error {
			if err := c.Get(ctx, key, got); err != nil {
				return err
			}
			pods = livePods(t, c, got.UID)
			st := got.Status
			if int32(len(pods)) != want || st.Replicas != want || st.ReadyReplicas != want || st.AvailableReplicas != want ||
				st.ObservedGeneration != got.Generation {
				return fmt.Errorf("%d live pods, status %+v", len(pods), st)
			}
			if check != nil {
				return check(got)
			}
			return nil
		}, envtest.Within(120*time.Second))
		return got, pods
	}
	got, pods := settled("3 pods ready", 3, func(s *appsv1.StatefulSet) error {
		if s.Status.CurrentRevision == "" || s.Status.CurrentRevision != s.Status.UpdateRevision || s.Status.CurrentReplicas != 3 {
			return fmt.Errorf("revisions %q -> %q, current %d", s.Status.CurrentRevision, s.Status.UpdateRevision, s.Status.CurrentReplicas)
		}
		return nil
	})
	rev1 := got.Status.CurrentRevision
	if !strings.HasPrefix(rev1, "web-") {
		t.Errorf("revision %q, want web-<hash>", rev1)
	}
	// Order: each pod created only after the one before it was Ready.
	up := log.since(0)
	if got, want := only(up, "added "), []string{"added web-0", "added web-1", "added web-2"}; !slices.Equal(got, want) {
		t.Errorf("pods created in order %v, want %v", got, want)
	}
	for i := 1; i < 3; i++ {
		if !before(up, fmt.Sprintf("ready web-%d", i-1), fmt.Sprintf("added web-%d", i)) {
			t.Errorf("web-%d created before web-%d was ready: %v", i, i-1, up)
		}
	}
	for i := range 3 {
		p := pods[fmt.Sprintf("web-%d", i)]
		wantLabels := map[string]string{"app": "web", appsv1.StatefulSetPodNameLabel: p.Name,
			appsv1.PodIndexLabel: fmt.Sprint(i), appsv1.StatefulSetRevisionLabel: rev1}
		for k, v := range wantLabels {
			if p.Labels[k] != v {
				t.Errorf("%s label %s = %q, want %q", p.Name, k, p.Labels[k], v)
			}
		}
		if p.Spec.Hostname != p.Name || p.Spec.Subdomain != "web" {
			t.Errorf("%s hostname %q subdomain %q", p.Name, p.Spec.Hostname, p.Spec.Subdomain)
		}
	}

	// A partition of 1 holds web-0 at the old revision; the others roll
	// from web-2 down.
	uids := map[string]types.UID{}
	for n, p := range pods {
		uids[n] = p.UID
	}
	mark := log.len()
	one := int32(1)
	got.Spec.Template.Spec.Containers[0].Image = "nginx:1.26"
	got.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{Partition: &one}
	if err := c.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	got, pods = settled("rolled above the partition", 3, func(s *appsv1.StatefulSet) error {
		if s.Status.UpdateRevision == rev1 || s.Status.UpdatedReplicas != 2 || s.Status.CurrentReplicas != 1 || s.Status.CurrentRevision != rev1 {
			return fmt.Errorf("status %+v", s.Status)
		}
		return nil
	})
	rev2 := got.Status.UpdateRevision
	if p := pods["web-0"]; p.UID != uids["web-0"] || p.Labels[appsv1.StatefulSetRevisionLabel] != rev1 {
		t.Errorf("web-0 replaced or relabelled below the partition: %s", p.Labels[appsv1.StatefulSetRevisionLabel])
	}
	for _, n := range []string{"web-1", "web-2"} {
		p := pods[n]
		if p.UID == uids[n] || p.Labels[appsv1.StatefulSetRevisionLabel] != rev2 || p.Spec.Containers[0].Image != "nginx:1.26" {
			t.Errorf("%s not updated: revision %s image %s", n, p.Labels[appsv1.StatefulSetRevisionLabel], p.Spec.Containers[0].Image)
		}
	}
	rolled := log.since(mark)
	if got, want := only(rolled, "deleting "), []string{"deleting web-2", "deleting web-1"}; !slices.Equal(got, want) {
		t.Errorf("rolled %v, want %v", got, want)
	}
	if !before(rolled, "ready web-2", "deleting web-1") {
		t.Errorf("web-1 deleted before the new web-2 was ready: %v", rolled)
	}

	// Without the partition web-0 follows and the update completes.
	zero := int32(0)
	got.Spec.UpdateStrategy.RollingUpdate.Partition = &zero
	if err := c.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	settled("update complete", 3, func(s *appsv1.StatefulSet) error {
		if s.Status.CurrentRevision != rev2 || s.Status.UpdatedReplicas != 3 || s.Status.CurrentReplicas != 3 {
			return fmt.Errorf("status %+v", s.Status)
		}
		return nil
	})
	revs := &appsv1.ControllerRevisionList{}
	if err := c.List(ctx, revs, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var revNames []string
	for _, r := range revs.Items {
		revNames = append(revNames, fmt.Sprintf("%s=%d", r.Name, r.Revision))
	}
	sort.Strings(revNames)
	if want := []string{rev1 + "=1", rev2 + "=2"}; !slices.Equal(revNames, sortedCopy(want)) {
		t.Errorf("controller revisions %v, want %v", revNames, want)
	}

	// Scaling down to 1 removes web-2, then web-1, each gone before the
	// next goes.
	mark = log.len()
	cur := &appsv1.StatefulSet{}
	if err := c.Get(ctx, key, cur); err != nil {
		t.Fatal(err)
	}
	cur.Spec.Replicas = &one
	if err := c.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	settled("scaled to 1", 1, nil)
	down := log.since(mark)
	if got, want := only(down, "deleting "), []string{"deleting web-2", "deleting web-1"}; !slices.Equal(got, want) {
		t.Errorf("scaled down %v, want %v", got, want)
	}
	if !before(down, "deleted web-2", "deleting web-1") {
		t.Errorf("web-1 deleted before web-2 was gone: %v", down)
	}

	// Deleted with its dependents orphaned and created again, the set
	// adopts its pod and its revisions rather than making new ones.
	_, left := settled("scaled to 1", 1, nil)
	if err := c.Delete(ctx, cur, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the set gone, its pod orphaned", func() error {
		if err := c.Get(ctx, key, &appsv1.StatefulSet{}); !client.IsNotFound(err) {
			return fmt.Errorf("set still there: %v", err)
		}
		p := &corev1.Pod{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web-0"}, p); err != nil {
			return err
		}
		if ref := metav1.GetControllerOf(p); ref != nil {
			return fmt.Errorf("web-0 still controlled by %s", ref.UID)
		}
		return nil
	})
	again := set.DeepCopy()
	again.ResourceVersion, again.UID = "", ""
	again.Spec.Replicas = &one
	again.Spec.Template.Spec.Containers[0].Image = "nginx:1.26"
	if err := c.Create(ctx, again); err != nil {
		t.Fatal(err)
	}
	got, pods = settled("the orphans adopted", 1, func(s *appsv1.StatefulSet) error {
		if s.Status.CurrentRevision != rev2 || s.Status.UpdateRevision != rev2 {
			return fmt.Errorf("status %+v", s.Status)
		}
		return nil
	})
	if p := pods["web-0"]; p.UID != left["web-0"].UID {
		t.Errorf("web-0 replaced (uid %s, was %s), not adopted", p.UID, left["web-0"].UID)
	}
	if err := c.List(ctx, revs, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	for _, r := range revs.Items {
		if ref := metav1.GetControllerOf(&r); ref == nil || ref.UID != got.UID {
			t.Errorf("revision %s not adopted: %v", r.Name, r.OwnerReferences)
		}
	}

	events := &corev1.EventList{}
	if err := c.List(ctx, events, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "StatefulSet" && e.Source.Component == "statefulset-controller" {
			msgs = append(msgs, e.Reason+": "+e.Message)
		}
	}
	for _, want := range []string{
		"SuccessfulCreate: create Pod web-0 in StatefulSet web successful",
		"SuccessfulDelete: delete Pod web-2 in StatefulSet web successful",
	} {
		if !slices.Contains(msgs, want) {
			t.Errorf("no event %q among %v", want, msgs)
		}
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

// livePods are the live pods controlled by the object with uid, by name.
func livePods(t *testing.T, c *client.Client, uid types.UID) map[string]corev1.Pod {
	t.Helper()
	list := &corev1.PodList{}
	if err := c.List(context.Background(), list, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	out := map[string]corev1.Pod{}
	for _, p := range list.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == uid && p.DeletionTimestamp == nil &&
			p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			out[p.Name] = p
		}
	}
	return out
}

func readySince(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// podLog records, in order, what a watch on the default namespace's
// pods shows: "added web-0", "ready web-0", "deleting web-0" (the
// deletion mark), "deleted web-0"; each once per pod UID.
type podLog struct {
	mu      sync.Mutex
	entries []string
	seen    map[string]bool
}

func (l *podLog) add(entry, uid string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[entry+"/"+uid] {
		return
	}
	l.seen[entry+"/"+uid] = true
	l.entries = append(l.entries, entry)
}

// since is the log from entry n on.
func (l *podLog) since(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries[n:])
}

func (l *podLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

func watchPods(t *testing.T, env *envtest.Env) *podLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := env.Client().Watch(ctx, &corev1.PodList{}, client.InNamespace("default"))
	if err != nil {
		t.Fatal(err)
	}
	l := &podLog{seen: map[string]bool{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			uid := string(p.UID)
			l.add("added "+p.Name, uid)
			if !readySince(p).IsZero() {
				l.add("ready "+p.Name, uid)
			}
			if p.DeletionTimestamp != nil {
				l.add("deleting "+p.Name, uid)
			}
			if ev.Type == watch.Deleted {
				l.add("deleted "+p.Name, uid)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		w.Stop()
		<-done
	})
	return l
}

// before reports whether a occurs in log and b, if it occurs, only
// after it.
func before(log []string, a, b string) bool {
	i, j := slices.Index(log, a), slices.Index(log, b)
	return i >= 0 && (j < 0 || i < j)
}

// only keeps the entries starting with one of prefixes.
func only(log []string, prefixes ...string) []string {
	var out []string
	for _, e := range log {
		for _, p := range prefixes {
			if strings.HasPrefix(e, p) {
				out = append(out, e)
			}
		}
	}
	return out
}

// TestLiveClaims: a Parallel StatefulSet with a claim template and the
// Delete/Delete retention policy makes a claim per pod, owned by the
// set; scaling down hands the removed pod's claim to that pod, so the
// garbage collector deletes it with the pod, and the kept claims stay.
func TestLiveClaims(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sim", Labels: map[string]string{"setpoint.dev/simulated": "true"}}}
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	two := int32(2)
	set := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            &two,
			ServiceName:         "db",
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "postgres",
					VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
				WhenScaled:  appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
			},
		},
	}
	if err := c.Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	// claims are the claims of the namespace, each with the kinds and
	// names of its owners.
	claims := func() (map[string]string, error) {
		list := &corev1.PersistentVolumeClaimList{}
		if err := c.List(ctx, list, client.InNamespace("default")); err != nil {
			return nil, err
		}
		out := map[string]string{}
		for _, pvc := range list.Items {
			if pvc.DeletionTimestamp != nil {
				continue
			}
			var owners []string
			for _, r := range pvc.OwnerReferences {
				owners = append(owners, r.Kind+"/"+r.Name)
			}
			out[pvc.Name] = strings.Join(owners, ",") + " " + string(pvc.Status.Phase) + " " + pvc.Labels["app"]
		}
		return out, nil
	}
	wantClaims := func(what string, want map[string]string) {
		t.Helper()
		envtest.Eventually(t, what, func() error {
			got, err := claims()
			if err != nil {
				return err
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Errorf("claims %v, want %v", got, want)
			}
			return nil
		}, envtest.Within(120*time.Second))
	}
	wantClaims("a claim per pod, owned by the set", map[string]string{
		"data-db-0": "StatefulSet/db Pending db", "data-db-1": "StatefulSet/db Pending db",
	})
	envtest.Eventually(t, "2 pods ready", func() error {
		got := &appsv1.StatefulSet{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "db"}, got); err != nil {
			return err
		}
		if got.Status.ReadyReplicas != 2 {
			return fmt.Errorf("status %+v", got.Status)
		}
		pods := livePods(t, c, got.UID)
		if v := pods["db-1"].Spec.Volumes; len(v) != 1 || v[0].PersistentVolumeClaim == nil || v[0].PersistentVolumeClaim.ClaimName != "data-db-1" {
			return fmt.Errorf("db-1 volumes %+v", v)
		}
		return nil
	}, envtest.Within(120*time.Second))

	cur := &appsv1.StatefulSet{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "db"}, cur); err != nil {
		t.Fatal(err)
	}
	one := int32(1)
	cur.Spec.Replicas = &one
	if err := c.Update(ctx, cur); err != nil {
		t.Fatal(err)
	}
	wantClaims("the scaled-down pod's claim deleted with it", map[string]string{"data-db-0": "StatefulSet/db Pending db"})

	events := &corev1.EventList{}
	if err := c.List(ctx, events, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "StatefulSet" && e.Source.Component == "statefulset-controller" {
			msgs = append(msgs, e.Reason+": "+e.Message)
		}
	}
	if want := "SuccessfulCreate: create Claim data-db-0 Pod db-0 in StatefulSet db success"; !slices.Contains(msgs, want) {
		t.Errorf("no event %q among %v", want, msgs)
	}
}

// TestLiveNeverReady: pods that never become Ready hold an OrderedReady
// set at its first pod, while a Parallel set creates all of its pods.
func TestLiveNeverReady(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := context.Background()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sim", Labels: map[string]string{"setpoint.dev/simulated": "true"}}}
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	three := int32(3)
	for _, policy := range []appsv1.PodManagementPolicyType{appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement} {
		name := strings.ToLower(string(policy))
		set := &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: appsv1.StatefulSetSpec{
				Replicas: &three, ServiceName: name, PodManagementPolicy: policy,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name},
						Annotations: map[string]string{"setpoint.dev/never-ready": "true"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
				},
			},
		}
		if err := c.Create(ctx, set); err != nil {
			t.Fatal(err)
		}
	}
	count := func(set string) (int, error) {
		list := &corev1.PodList{}
		if err := c.List(ctx, list, client.InNamespace("default"), client.MatchingLabels{"app": set}); err != nil {
			return 0, err
		}
		return len(list.Items), nil
	}
	envtest.Eventually(t, "the parallel set's 3 pods", func() error {
		if n, err := count("parallel"); err != nil || n != 3 {
			return fmt.Errorf("%d pods (%v)", n, err)
		}
		return nil
	}, envtest.Within(60*time.Second))
	envtest.Eventually(t, "the ordered set's first pod running", func() error {
		p := &corev1.Pod{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "orderedready-0"}, p); err != nil {
			return err
		}
		if p.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("phase %s", p.Status.Phase)
		}
		return nil
	}, envtest.Within(60*time.Second))
	// Give the ordered set time it would use to go on, were it to.
	time.Sleep(2 * time.Second)
	if n, err := count("orderedready"); err != nil || n != 1 {
		t.Errorf("the ordered set has %d pods (%v), want 1 while orderedready-0 is not ready", n, err)
	}
}

package deployment_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/deployment"
)

const within = 120 * time.Second

func startEnv(t *testing.T) (*client.Client, context.Context) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := context.Background()
	// envtest's node agent registers no node of its own: this one it
	// adopts and runs.
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sim", Labels: map[string]string{"setpoint.dev/simulated": "true"}}}
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	return c, ctx
}

func newDeployment(name string, replicas int32, strategy appsv1.DeploymentStrategy) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
			Strategy: strategy,
		},
	}
}

// settled waits until the Deployment is fully rolled out at want
// replicas: status all updated and available, Available and Progressing
// (NewReplicaSetAvailable) conditions, one ReplicaSet at want whose
// template has image, every other at zero, and want live pods, all of
// that ReplicaSet. It returns that ReplicaSet.
func settled(t *testing.T, c *client.Client, name string, want int32, image string) *appsv1.ReplicaSet {
	t.Helper()
	ctx := context.Background()
	var current *appsv1.ReplicaSet
	envtest.Eventually(t, fmt.Sprintf("%s rolled out at %d x %s", name, want, image), func() error {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, d); err != nil {
			return err
		}
		st := d.Status
		if st.ObservedGeneration != d.Generation || st.Replicas != want || st.UpdatedReplicas != want || st.ReadyReplicas != want ||
			st.AvailableReplicas != want || st.UnavailableReplicas != 0 {
			return fmt.Errorf("generation %d, status %+v", d.Generation, st)
		}
		if c := cond(d, appsv1.DeploymentAvailable); c == nil || c.Status != corev1.ConditionTrue || c.Reason != deployment.ReasonMinimumAvailable {
			return fmt.Errorf("available condition %+v", c)
		}
		if c := cond(d, appsv1.DeploymentProgressing); c == nil || c.Status != corev1.ConditionTrue || c.Reason != deployment.ReasonNewRSAvailable {
			return fmt.Errorf("progressing condition %+v", c)
		}
		current = nil
		for _, rs := range ownedSets(t, c, d) {
			switch {
			case rs.Spec.Template.Spec.Containers[0].Image == image:
				if *rs.Spec.Replicas != want || rs.Status.AvailableReplicas != want {
					return fmt.Errorf("new replica set %s at %d, %d available", rs.Name, *rs.Spec.Replicas, rs.Status.AvailableReplicas)
				}
				current = rs
			case *rs.Spec.Replicas != 0 || rs.Status.Replicas != 0:
				return fmt.Errorf("old replica set %s at %d (%d pods)", rs.Name, *rs.Spec.Replicas, rs.Status.Replicas)
			}
		}
		if current == nil {
			return fmt.Errorf("no replica set with image %s", image)
		}
		if !strings.HasPrefix(current.Name, name+"-") || current.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != strings.TrimPrefix(current.Name, name+"-") {
			return fmt.Errorf("replica set %s labelled %v", current.Name, current.Labels)
		}
		if got := current.Annotations[deployment.RevisionAnnotation]; got != d.Annotations[deployment.RevisionAnnotation] {
			return fmt.Errorf("replica set revision %s, deployment's %s", got, d.Annotations[deployment.RevisionAnnotation])
		}
		if pods := livePods(t, c, name); len(pods) != int(want) {
			return fmt.Errorf("%d live pods", len(pods))
		}
		return nil
	}, envtest.Within(within))
	return current
}

func cond(d *appsv1.Deployment, typ appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == typ {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}

func ownedSets(t *testing.T, c *client.Client, d *appsv1.Deployment) []*appsv1.ReplicaSet {
	t.Helper()
	list := &appsv1.ReplicaSetList{}
	if err := c.List(context.Background(), list, client.InNamespace(d.Namespace)); err != nil {
		t.Fatal(err)
	}
	var out []*appsv1.ReplicaSet
	for i := range list.Items {
		if ref := metav1.GetControllerOf(&list.Items[i]); ref != nil && ref.UID == d.UID {
			out = append(out, &list.Items[i])
		}
	}
	return out
}

// livePods are the pods labelled app=name not finished nor being deleted.
func livePods(t *testing.T, c *client.Client, name string) []corev1.Pod {
	t.Helper()
	list := &corev1.PodList{}
	if err := c.List(context.Background(), list, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.Labels["app"] == name && p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			out = append(out, p)
		}
	}
	return out
}

func update(t *testing.T, c *client.Client, name string, change func(*appsv1.Deployment)) {
	t.Helper()
	envtest.Eventually(t, "deployment updated", func() error {
		d := &appsv1.Deployment{}
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: name}, d); err != nil {
			return err
		}
		change(d)
		return c.Update(context.Background(), d)
	})
}

func setImage(image string) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = image }
}

func setReplicas(n int32) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Spec.Replicas = &n }
}

// readyWatch follows the ready, live pods labelled app=name from a
// watch and remembers the fewest seen once started.
type readyWatch struct {
	mu     sync.Mutex
	ready  map[string]bool
	fewest int
	w      watch.Interface
}

func watchReady(t *testing.T, c *client.Client, name string) *readyWatch {
	t.Helper()
	w, err := c.Watch(context.Background(), &corev1.PodList{}, client.InNamespace("default"))
	if err != nil {
		t.Fatal(err)
	}
	rw := &readyWatch{ready: map[string]bool{}, fewest: -1, w: w}
	go func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || p.Labels["app"] != name {
				continue
			}
			rw.mu.Lock()
			live := ev.Type != watch.Deleted && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && podReady(p)
			if live {
				rw.ready[p.Name] = true
			} else {
				delete(rw.ready, p.Name)
			}
			if rw.fewest >= 0 && len(rw.ready) < rw.fewest {
				rw.fewest = len(rw.ready)
			}
			rw.mu.Unlock()
		}
	}()
	return rw
}

// begin starts counting the fewest ready pods once the watch has seen
// want of them.
func (rw *readyWatch) begin(t *testing.T, want int) {
	t.Helper()
	envtest.Eventually(t, "the watch sees the ready pods", func() error {
		rw.mu.Lock()
		defer rw.mu.Unlock()
		if len(rw.ready) < want {
			return fmt.Errorf("%d ready pods seen", len(rw.ready))
		}
		rw.fewest = len(rw.ready)
		return nil
	})
}

// least is the fewest ready pods seen since begin.
func (rw *readyWatch) least() int {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.fewest
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// TestLiveRollingUpdate: the seed's walk-through on the controllers
// envtest runs: a Deployment of 5 comes up, a lost pod is replaced, it
// scales down and up, an image change rolls out without going under
// replicas-maxUnavailable ready pods, a rollback returns to the first
// template under a new revision, and history beyond the limit goes.
func TestLiveRollingUpdate(t *testing.T) {
	c, ctx := startEnv(t)
	one := intstr.FromInt32(1)
	d := newDeployment("web", 5, appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &one, MaxUnavailable: &one}})
	limit := int32(1)
	d.Spec.RevisionHistoryLimit = &limit
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	first := settled(t, c, "web", 5, "nginx")
	if got := first.Annotations[deployment.DesiredReplicasAnnotation] + "/" + first.Annotations[deployment.MaxReplicasAnnotation]; got != "5/6" {
		t.Errorf("replica annotations %s, want 5/6", got)
	}

	// A lost pod is replaced.
	lost := livePods(t, c, "web")[0]
	if err := c.Delete(ctx, &lost, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	settled(t, c, "web", 5, "nginx")
	for _, p := range livePods(t, c, "web") {
		if p.UID == lost.UID {
			t.Fatalf("deleted pod %s still live", p.Name)
		}
	}

	update(t, c, "web", setReplicas(2))
	settled(t, c, "web", 2, "nginx")
	update(t, c, "web", setReplicas(4))
	settled(t, c, "web", 4, "nginx")

	// An image change rolls out with at least 4-1 pods ready throughout.
	rw := watchReady(t, c, "web")
	defer rw.w.Stop()
	rw.begin(t, 4)
	update(t, c, "web", setImage("nginx:1.27"))
	second := settled(t, c, "web", 4, "nginx:1.27")
	if got := rw.least(); got < 3 {
		t.Errorf("%d pods ready at the worst of the rollout, want at least 3", got)
	}
	if second.Name == first.Name {
		t.Fatalf("no new replica set: %s", second.Name)
	}
	if got := second.Annotations[deployment.RevisionAnnotation]; got != "2" {
		t.Errorf("new replica set revision %s, want 2", got)
	}

	// Rollback, as kubectl rollout undo does it: the old ReplicaSet's
	// template, minus its hash label, patched in.
	old := &appsv1.ReplicaSet{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: first.Name}, old); err != nil {
		t.Fatal(err)
	}
	update(t, c, "web", func(d *appsv1.Deployment) {
		d.Spec.Template = *old.Spec.Template.DeepCopy()
		delete(d.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	})
	back := settled(t, c, "web", 4, "nginx")
	if back.Name != first.Name {
		t.Errorf("rolled back to %s, want the first replica set %s again", back.Name, first.Name)
	}
	if got := back.Annotations[deployment.RevisionAnnotation]; got != "3" {
		t.Errorf("rolled back replica set revision %s, want 3", got)
	}
	if got := back.Annotations[deployment.RevisionHistoryAnnotation]; got != "1" {
		t.Errorf("rolled back replica set revision history %q, want 1", got)
	}

	// A third template leaves two old ReplicaSets: the limit of one
	// deletes the oldest revision.
	update(t, c, "web", setImage("nginx:1.28"))
	settled(t, c, "web", 4, "nginx:1.28")
	envtest.Eventually(t, "history pruned to one old replica set", func() error {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, d); err != nil {
			return err
		}
		var names []string
		for _, rs := range ownedSets(t, c, d) {
			names = append(names, rs.Name)
		}
		if len(names) != 2 || strings.Contains(strings.Join(names, ","), second.Name) {
			return fmt.Errorf("replica sets %v, want %s gone", names, second.Name)
		}
		return nil
	}, envtest.Within(within))

	events := &corev1.EventList{}
	if err := c.List(ctx, events, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var scaling []string
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "Deployment" && e.Source.Component == deployment.ControllerName && e.Reason == "ScalingReplicaSet" {
			scaling = append(scaling, e.Message)
		}
	}
	all := strings.Join(scaling, "\n")
	for _, want := range []string{
		fmt.Sprintf("Scaled up replica set %s from 0 to 5", first.Name),
		fmt.Sprintf("Scaled down replica set %s from 5 to 2", first.Name),
		fmt.Sprintf("Scaled up replica set %s from 2 to 4", first.Name),
		fmt.Sprintf("Scaled up replica set %s from 0 to 1", second.Name),
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no event %q among:\n%s", want, all)
		}
	}
}

// TestLiveRecreate: a Recreate rollout runs no new pod until the old
// ones are gone.
func TestLiveRecreate(t *testing.T) {
	c, ctx := startEnv(t)
	d := newDeployment("batch", 3, appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType})
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	first := settled(t, c, "batch", 3, "nginx")
	w, err := c.Watch(ctx, &corev1.PodList{}, client.InNamespace("default"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	var mixed []string
	go func() {
		live := map[string]string{} // pod -> its pod-template-hash
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || p.Labels["app"] != "batch" {
				continue
			}
			if ev.Type == watch.Deleted {
				delete(live, p.Name)
			} else {
				live[p.Name] = p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
			}
			hashes := map[string]bool{}
			for _, h := range live {
				hashes[h] = true
			}
			if len(hashes) > 1 {
				mu.Lock()
				mixed = append(mixed, fmt.Sprint(live))
				mu.Unlock()
			}
		}
	}()
	update(t, c, "batch", setImage("nginx:1.27"))
	second := settled(t, c, "batch", 3, "nginx:1.27")
	if second.Name == first.Name {
		t.Fatalf("no new replica set")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(mixed) > 0 {
		t.Errorf("old and new pods existed together: %v", mixed[0])
	}
}

// TestLivePauseAndDeadline: a paused Deployment says so and does not
// roll out a template change but still scales; resumed, it rolls out;
// pods that never get ready exceed the progress deadline.
func TestLivePauseAndDeadline(t *testing.T) {
	c, ctx := startEnv(t)
	d := newDeployment("slow", 2, appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType})
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	first := settled(t, c, "slow", 2, "nginx")
	get := func() *appsv1.Deployment {
		got := &appsv1.Deployment{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "slow"}, got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	progressing := func(reason string) {
		t.Helper()
		envtest.Eventually(t, "progressing "+reason, func() error {
			if c := cond(get(), appsv1.DeploymentProgressing); c == nil || c.Reason != reason {
				return fmt.Errorf("progressing condition %+v", c)
			}
			return nil
		}, envtest.Within(within))
	}

	update(t, c, "slow", func(d *appsv1.Deployment) { d.Spec.Paused = true })
	progressing(deployment.ReasonPaused)
	update(t, c, "slow", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.27"
		three := int32(3)
		d.Spec.Replicas = &three
	})
	envtest.Eventually(t, "paused deployment scaled", func() error {
		got := get()
		if got.Status.ObservedGeneration != got.Generation || got.Status.AvailableReplicas != 3 {
			return fmt.Errorf("status %+v", got.Status)
		}
		return nil
	}, envtest.Within(within))
	if sets := ownedSets(t, c, get()); len(sets) != 1 || sets[0].Name != first.Name {
		t.Fatalf("paused deployment has replica sets %d, want only %s", len(sets), first.Name)
	}

	update(t, c, "slow", func(d *appsv1.Deployment) { d.Spec.Paused = false })
	settled(t, c, "slow", 3, "nginx:1.27")

	// Pods that never get ready: past a 2 s deadline the rollout has
	// timed out.
	update(t, c, "slow", func(d *appsv1.Deployment) {
		deadline := int32(2)
		d.Spec.ProgressDeadlineSeconds = &deadline
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
		d.Spec.Template.Annotations = map[string]string{"setpoint.dev/never-ready": "true"}
	})
	progressing(deployment.ReasonTimedOut)
	got := get()
	c0 := cond(got, appsv1.DeploymentProgressing)
	sets := ownedSets(t, c, got)
	var newName string
	for _, rs := range sets {
		if rs.Spec.Template.Spec.Containers[0].Image == "nginx:1.28" {
			newName = rs.Name
		}
	}
	if want := fmt.Sprintf("ReplicaSet %q has timed out progressing.", newName); c0.Message != want || c0.Status != corev1.ConditionFalse {
		t.Errorf("timed out condition %s %q, want False %q", c0.Status, c0.Message, want)
	}
}

// TestLiveAdoptionAndCascade: a Deployment deleted with orphan
// propagation leaves its ReplicaSet and pods, released; a new Deployment
// with the same template adopts that ReplicaSet rather than making
// another; background and foreground deletion take the ReplicaSets and
// pods away.
func TestLiveAdoptionAndCascade(t *testing.T) {
	c, ctx := startEnv(t)
	for _, propagation := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground} {
		d := newDeployment("app", 2, appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType})
		if err := c.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
		first := settled(t, c, "app", 2, "nginx")
		if err := c.Delete(ctx, d, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
			t.Fatal(err)
		}
		envtest.Eventually(t, "the orphaned replica set released", func() error {
			rs := &appsv1.ReplicaSet{}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: first.Name}, rs); err != nil {
				return err
			}
			if ref := metav1.GetControllerOf(rs); ref != nil {
				return fmt.Errorf("still controlled by %s", ref.UID)
			}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "app"}, &appsv1.Deployment{}); !client.IsNotFound(err) {
				return fmt.Errorf("deployment still there (%v)", err)
			}
			return nil
		}, envtest.Within(within))
		if pods := livePods(t, c, "app"); len(pods) != 2 {
			t.Fatalf("%d pods after an orphaning delete, want 2", len(pods))
		}

		again := newDeployment("app", 2, appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType})
		if err := c.Create(ctx, again); err != nil {
			t.Fatal(err)
		}
		if adopted := settled(t, c, "app", 2, "nginx"); adopted.UID != first.UID {
			t.Fatalf("new replica set %s (%s), want %s adopted", adopted.Name, adopted.UID, first.UID)
		}
		if sets := ownedSets(t, c, again); len(sets) != 1 {
			t.Fatalf("%d replica sets, want the adopted one only", len(sets))
		}

		if err := c.Delete(ctx, again, client.PropagationPolicy(propagation)); err != nil {
			t.Fatal(err)
		}
		envtest.Eventually(t, fmt.Sprintf("%s deletion took everything", propagation), func() error {
			err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: first.Name}, &appsv1.ReplicaSet{})
			if !client.IsNotFound(err) {
				return fmt.Errorf("replica set still there (%v)", err)
			}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "app"}, &appsv1.Deployment{}); !client.IsNotFound(err) {
				return fmt.Errorf("deployment still there (%v)", err)
			}
			if pods := livePods(t, c, "app"); len(pods) != 0 {
				return fmt.Errorf("%d pods left", len(pods))
			}
			return nil
		}, envtest.Within(within))
	}
}

// TestLiveHashCollision: when the name the template hashes to is taken
// by a ReplicaSet with another template, the Deployment counts a
// collision and its new ReplicaSet gets the name of the next hash.
func TestLiveHashCollision(t *testing.T) {
	c, ctx := startEnv(t)
	d := newDeployment("col", 1, appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType})
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	first := settled(t, c, "col", 1, "nginx")
	if err := c.Delete(ctx, d, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "deployment gone, replica set orphaned", func() error {
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "col"}, &appsv1.Deployment{}); !client.IsNotFound(err) {
			return fmt.Errorf("deployment still there (%v)", err)
		}
		rs := &appsv1.ReplicaSet{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: first.Name}, rs); err != nil {
			return err
		}
		if len(rs.OwnerReferences) > 0 {
			return fmt.Errorf("still owned")
		}
		// The same name now holds another template.
		rs.Spec.Template.Spec.Containers[0].Image = "busybox"
		return c.Update(ctx, rs)
	}, envtest.Within(within))

	again := newDeployment("col", 1, appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType})
	if err := c.Create(ctx, again); err != nil {
		t.Fatal(err)
	}
	current := settled(t, c, "col", 1, "nginx")
	got := &appsv1.Deployment{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "col"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Status.CollisionCount == nil || *got.Status.CollisionCount != 1 {
		t.Fatalf("collisionCount %v, want 1", got.Status.CollisionCount)
	}
	template := got.Spec.Template
	if want := "col-" + deployment.TemplateHash(&template, got.Status.CollisionCount); current.Name != want || current.Name == first.Name {
		t.Errorf("new replica set %s, want %s (not %s)", current.Name, want, first.Name)
	}
}

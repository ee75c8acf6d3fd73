//go:build oracle

package deployment_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
)

// TestDeploymentOracle plays one scenario (create, image change, scale
// in the middle of the rollout, pause, a template change and a scale
// while paused, resume, a rollback through the deprecated annotation, a
// history limit, a Recreate rollout, a progress deadline) against a real
// kube-apiserver + kube-controller-manager v1.33 running the deployment
// and replicaset controllers (see /work/shared/perf/oracle; start it with
// KCM_CONTROLLERS=deployment,replicaset,garbagecollector) and against
// envtest without nodes, so no pod gets ready on either side, and
// compares the ReplicaSets (names, so hashes, sizes, annotations) and the
// Deployments' status and conditions after every step. Run with -tags
// oracle and ORACLE_URL, ORACLE_TOKEN, ORACLE_CA set.
func TestDeploymentOracle(t *testing.T) {
	server, token, caFile := os.Getenv("ORACLE_URL"), os.Getenv("ORACLE_TOKEN"), os.Getenv("ORACLE_CA")
	if server == "" || token == "" || caFile == "" {
		t.Skip("ORACLE_URL, ORACLE_TOKEN and ORACLE_CA name no kube-apiserver")
	}
	oracle, err := client.New(&rest.Config{Host: server, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAFile: caFile}}, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("deploy-oracle-%d", time.Now().UnixNano())
	want := playScenario(t, oracle, ns)
	got := playScenario(t, envtest.Start(t).Client(), ns)
	for i := range max(len(want), len(got)) {
		w, g := "", ""
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Errorf("step %d:\n--- kube\n%s\n--- setpoint\n%s", i, w, g)
		}
	}
}

func playScenario(t *testing.T, c *client.Client, ns string) []string {
	t.Helper()
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	var states []string
	step := func(name, what string, change func(*appsv1.Deployment)) {
		t.Helper()
		if change != nil {
			envtest.Eventually(t, what, func() error {
				d := &appsv1.Deployment{}
				if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, d); err != nil {
					return err
				}
				change(d)
				return c.Update(ctx, d)
			})
		}
		states = append(states, what+"\n"+settledState(t, c, ns, name))
	}
	create := func(name string, shape func(*appsv1.Deployment)) {
		t.Helper()
		d := newDeployment(name, 5, appsv1.DeploymentStrategy{})
		d.Namespace = ns
		d.Spec.Template.Spec.Containers[0].Name = "nginx"
		if shape != nil {
			shape(d)
		}
		if err := c.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
		step(name, "create "+name, nil)
	}

	create("nginx", nil)
	step("nginx", "set image", setImage("nginx:1.27"))
	step("nginx", "scale to 10", setReplicas(10))
	step("nginx", "pause", func(d *appsv1.Deployment) { d.Spec.Paused = true })
	step("nginx", "set image while paused", setImage("nginx:1.28"))
	step("nginx", "scale to 4 while paused", setReplicas(4))
	step("nginx", "resume", func(d *appsv1.Deployment) { d.Spec.Paused = false })
	step("nginx", "rollback to the previous revision", func(d *appsv1.Deployment) {
		d.Annotations[appsv1.DeprecatedRollbackTo] = "0"
	})
	step("nginx", "rollback to revision 1", func(d *appsv1.Deployment) {
		d.Annotations[appsv1.DeprecatedRollbackTo] = "1"
	})
	step("nginx", "rollback to a revision that is not there", func(d *appsv1.Deployment) {
		d.Annotations[appsv1.DeprecatedRollbackTo] = "42"
	})
	step("nginx", "history limit 1", func(d *appsv1.Deployment) { one := int32(1); d.Spec.RevisionHistoryLimit = &one })
	step("nginx", "scale to 0", setReplicas(0))

	create("recreate", func(d *appsv1.Deployment) {
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	})
	step("recreate", "recreate: set image", setImage("nginx:1.27"))
	create("deadline", func(d *appsv1.Deployment) { six := int32(6); d.Spec.ProgressDeadlineSeconds = &six })
	states = append(states, "deadline passed\n"+settledState(t, c, ns, "deadline"))
	return states
}

// settledState waits for the Deployment to observe its generation and
// its ReplicaSets and status to stay the same for two seconds, and
// prints them without names of pods, times or UIDs.
func settledState(t *testing.T, c *client.Client, ns, name string) string {
	t.Helper()
	var last string
	var since time.Time
	envtest.Eventually(t, name+" settled", func() error {
		s, observed := state(t, c, ns, name)
		switch {
		case !observed:
			last = ""
			return fmt.Errorf("generation not observed")
		case s != last:
			last, since = s, time.Now()
			return fmt.Errorf("changing")
		case time.Since(since) < 2*time.Second:
			return fmt.Errorf("steady for %v", time.Since(since))
		}
		return nil
	}, envtest.Within(within), envtest.Every(200*time.Millisecond))
	return last
}

func state(t *testing.T, c *client.Client, ns, name string) (string, bool) {
	ctx := context.Background()
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, d); err != nil {
		t.Fatal(err)
	}
	list := &appsv1.ReplicaSetList{}
	if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, rs := range list.Items {
		if ref := metav1.GetControllerOf(&rs); ref == nil || ref.UID != d.UID {
			continue
		}
		a := rs.Annotations
		lines = append(lines, fmt.Sprintf("rs %s spec=%d status=%d revision=%s history=%s desired=%s max=%s image=%s", rs.Name, *rs.Spec.Replicas,
			rs.Status.Replicas, a["deployment.kubernetes.io/revision"], a["deployment.kubernetes.io/revision-history"],
			a["deployment.kubernetes.io/desired-replicas"], a["deployment.kubernetes.io/max-replicas"], rs.Spec.Template.Spec.Containers[0].Image))
	}
	slices.Sort(lines)
	st := d.Status
	cc := "nil"
	if st.CollisionCount != nil {
		cc = fmt.Sprint(*st.CollisionCount)
	}
	lines = append(lines, fmt.Sprintf("deployment generation=%d observed=%d revision=%s rollbackTo=%q image=%s replicas=%d updated=%d ready=%d available=%d unavailable=%d collisions=%s",
		d.Generation, st.ObservedGeneration, d.Annotations["deployment.kubernetes.io/revision"], d.Annotations[appsv1.DeprecatedRollbackTo],
		d.Spec.Template.Spec.Containers[0].Image, st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas, cc))
	for _, c := range st.Conditions {
		lines = append(lines, fmt.Sprintf("condition %s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(lines, "\n"), st.ObservedGeneration >= d.Generation
}

package job_test

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/job"
)

// frozenPods reads Jobs from the server but lists the pods of a moment
// long gone: a cache that never catches up.
type frozenPods struct {
	client.Reader
	pods []corev1.Pod
}

func (f frozenPods) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if pl, ok := list.(*corev1.PodList); ok {
		pl.Items = append([]corev1.Pod(nil), f.pods...)
		return nil
	}
	return f.Reader.List(ctx, list, opts...)
}

// TestSlowCache: passes over a cache that does not show the pods they
// created create no more until the expectations time out (5 minutes).
func TestSlowCache(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	c := env.Client()
	ctx := context.Background()
	j := newJob("slow", 5, 2, "1h", 0)
	if err := c.Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	fake := clock.NewFake(time.Now())
	r := job.NewReconciler(frozenPods{Reader: c}, c, fake)
	req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: j.Namespace, Name: j.Name}}
	steps := []struct {
		name    string
		advance time.Duration
		want    int
	}{
		{name: "first pass creates parallelism pods", want: 2},
		{name: "the cache shows none: nothing more", want: 2},
		{name: "still within the expectations' timeout", advance: 4 * time.Minute, want: 2},
		{name: "past it: the pass acts on what it sees", advance: 2 * time.Minute, want: 4},
	}
	for _, s := range steps {
		fake.Step(s.advance)
		if _, err := r.Reconcile(ctx, req); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := &batchv1.Job{}
		if err := c.Get(ctx, req.NamespacedName, got); err != nil {
			t.Fatal(err)
		}
		pods, err := podsOf(ctx, c, got)
		if err != nil {
			t.Fatal(err)
		}
		if len(pods) != s.want {
			t.Errorf("%s: %d pods, want %d", s.name, len(pods), s.want)
		}
	}
}

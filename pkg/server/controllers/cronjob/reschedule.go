package cronjob

import (
	"context"
	"fmt"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

var cronJobGVK = batchv1.SchemeGroupVersion.WithKind("CronJob")

// rescheduler queues a CronJob whose schedule or time zone changed for
// just after the new schedule's next time, as kube's update handler
// does; the For source drops those updates. A schedule the controller
// cannot parse gets an UnParseableCronJobSchedule Event instead.
type rescheduler struct {
	cluster controller.Cluster
	clock   clock.Clock
	events  eventRecorder
}

func (s *rescheduler) Start(ctx context.Context, q controller.Queue) error {
	infs, err := s.cluster.Informers(ctx, cronJobGVK, false)
	if err != nil {
		return fmt.Errorf("cronjob: informers for CronJobs: %w", err)
	}
	var mu sync.Mutex
	timers := map[clock.Timer]bool{}
	h := cache.HandlerFuncs[cache.Object]{UpdateFunc: func(o, n cache.Object) {
		old, ok1 := o.(*batchv1.CronJob)
		cj, ok2 := n.(*batchv1.CronJob)
		if !ok1 || !ok2 || !scheduleChanged(old, cj) {
			return
		}
		sched, err := ParseSchedule(cj)
		if err != nil {
			s.events.Eventf(cj, corev1.EventTypeWarning, "UnParseableCronJobSchedule", "unparseable schedule for cronjob: %s", cj.Spec.Schedule)
			return
		}
		req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cj.Namespace, Name: cj.Name}}
		reason := reconcile.Reason{Trigger: reconcile.TriggerUpdate, Kind: cronJobGVK.Kind, Namespace: cj.Namespace, Name: cj.Name}
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		var t clock.Timer
		t = s.clock.AfterFunc(RequeueAfter(cj, s.clock.Now(), sched), func() {
			mu.Lock()
			delete(timers, t)
			mu.Unlock()
			q.Add(req, reason)
		})
		timers[t] = true
	}}
	var regs []*cache.Registration
	for _, inf := range infs {
		r, err := inf.AddHandler(h, cache.HandlerOptions{Name: "cronjob-reschedule"})
		if err != nil {
			return err
		}
		regs = append(regs, r)
	}
	go func() {
		<-ctx.Done()
		for _, r := range regs {
			r.Remove()
		}
		mu.Lock()
		defer mu.Unlock()
		for t := range timers {
			t.Stop()
		}
		clear(timers)
	}()
	return nil
}

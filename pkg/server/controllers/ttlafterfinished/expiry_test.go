package ttlafterfinished

import (
	"errors"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestExpiry(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	job := func(ttl *int32, conds ...batchv1.JobCondition) *batchv1.Job {
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j"}, Spec: batchv1.JobSpec{TTLSecondsAfterFinished: ttl},
			Status: batchv1.JobStatus{Conditions: conds}}
	}
	ttl := func(s int32) *int32 { return &s }
	cond := func(ct batchv1.JobConditionType, status corev1.ConditionStatus, at time.Time) batchv1.JobCondition {
		return batchv1.JobCondition{Type: ct, Status: status, LastTransitionTime: metav1.NewTime(at)}
	}
	deleting := job(ttl(0), cond(batchv1.JobComplete, corev1.ConditionTrue, t0.Add(-time.Hour)))
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}
	tests := []struct {
		name    string
		job     *batchv1.Job
		wait    time.Duration
		due     bool
		wantErr error
	}{
		{name: "no ttl", job: job(nil, cond(batchv1.JobComplete, corev1.ConditionTrue, t0.Add(-time.Hour)))},
		{name: "running", job: job(ttl(0), cond(batchv1.JobSuspended, corev1.ConditionTrue, t0))},
		{name: "interim condition only", job: job(ttl(0), cond(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, t0.Add(-time.Hour)))},
		{name: "complete, ttl 0", job: job(ttl(0), cond(batchv1.JobComplete, corev1.ConditionTrue, t0)), due: true},
		{name: "failed, ttl ahead", job: job(ttl(100), cond(batchv1.JobFailed, corev1.ConditionTrue, t0.Add(-40*time.Second))), wait: 60 * time.Second},
		{name: "complete, ttl passed", job: job(ttl(100), cond(batchv1.JobComplete, corev1.ConditionTrue, t0.Add(-101*time.Second))), due: true},
		{name: "no transition time", job: job(ttl(5), batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue}), wantErr: ErrNoFinishTime},
		{name: "being deleted", job: deleting},
	}
	for _, tt := range tests {
		wait, due, err := Expiry(tt.job, t0)
		if wait != tt.wait || due != tt.due || !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: Expiry = %v, %v, %v; want %v, %v, %v", tt.name, wait, due, err, tt.wait, tt.due, tt.wantErr)
		}
	}
}

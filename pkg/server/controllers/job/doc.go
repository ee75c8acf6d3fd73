// Package job runs each Job's pods to completion, as
// kube-controller-manager's Job controller (v1.33) does.
//
//	Jobs, Pods (informers) -> this controller -> Pods (create with the
//	                                             tracking finalizer, delete,
//	                                             adopt, release, remove the
//	                                             finalizer)
//	                                          -> Job status (counts,
//	                                             uncounted pods, indexes,
//	                                             conditions) and Events
//
// A Job keeps min(parallelism, completions left) pods active, created
// from its template in slow-start batches (an Indexed Job's pods each
// with the lowest free completion index). Each pod carries the
// batch.kubernetes.io/job-tracking finalizer: a finished pod is first
// written into status.uncountedTerminatedPods (or completedIndexes),
// then released, then counted in succeeded or failed, so no pod is
// counted twice or lost. Failed pods are replaced after an exponential
// back-off (10 s doubling to 10 min). The Job ends Failed (reason
// BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy,
// FailedIndexes or MaxFailedIndexesExceeded) by way of an interim
// FailureTarget condition, or Complete by way of SuccessCriteriaMet,
// once no pod is left to count or terminate. A suspended Job loses its
// active pods. The decisions are a Pass, a pure function of the Job, its
// pods and the time (NewPass, Plan, Managed, Track, Counted, Conclude);
// the reconciler only reads and writes, and a companion controller
// releases the finalizer of pods whose Job is gone or has ended. The
// stable job_controller_* metrics of kube are kept under its names.
//
// Unlike kube, which batches a Job's pod events for a second before a
// sync, a pod event starts a pass at once: the queue already merges
// events that arrive while a pass runs, and a pass waits for the cache
// to show its own writes before the next one starts.
package job

package registry

import (
	"strconv"

	"k8s.io/apimachinery/pkg/fields"
)

// batchBuiltins are batch/v1: Jobs and the CronJobs that make them.
func batchBuiltins() []*Resource {
	return []*Resource{
		{
			Group: "batch", Version: "v1", Kind: "Job", ListKind: "JobList",
			Plural: "jobs", Singular: "job", Categories: []string{"all"},
			Namespaced: true, StatusSubresource: true, Typed: true,
			// kube sets generation 1 on create and bumps it on spec
			// changes.
			TracksGeneration: true,
			SelectableFields: []string{"status.successful"},
			Columns:          jobColumns(),
			Strategy:         jobStrategy{},
		},
		{
			Group: "batch", Version: "v1", Kind: "CronJob", ListKind: "CronJobList",
			Plural: "cronjobs", Singular: "cronjob", ShortNames: []string{"cj"}, Categories: []string{"all"},
			Namespaced: true, StatusSubresource: true, Typed: true, TracksGeneration: true,
			Columns:  cronJobColumns(),
			Strategy: cronJobStrategy{},
		},
	}
}

// FieldValues gives status.successful as kube selects Jobs by it: the
// count of succeeded pods, "0" before any.
func (jobStrategy) FieldValues(obj map[string]any) fields.Set {
	var n int64
	switch v := nestedMap(obj, false, "status")["succeeded"].(type) {
	case int64:
		n = v
	case float64:
		n = int64(v)
	}
	return fields.Set{"status.successful": strconv.FormatInt(n, 10)}
}

// OrphansByDefault: kube-apiserver orphans a batch/v1 Job's pods when a
// delete names no propagation, as it did before garbage collection, so
// old clients keep their pods.
func (jobStrategy) OrphansByDefault() {}

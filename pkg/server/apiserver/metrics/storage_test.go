package metrics

import (
	"errors"
	"testing"
)

// TestStorageUsageAlarm follows a store filling past its quota and coming
// back under it: the alarm is raised and clears with the usage.
func TestStorageUsageAlarm(t *testing.T) {
	id := map[string]string{"storage_cluster_id": "etcd-0"}
	type sample struct {
		name  string
		value float64 // <0: the series must be absent
	}
	tests := []struct {
		name  string
		usage StorageUsage
		err   error
		want  []sample
	}{
		{"under the quota", StorageUsage{InUse: 100, Quota: 1000}, nil, []sample{
			{"setpoint_storage_size_in_use_bytes", 100}, {"setpoint_storage_quota_bytes", 1000}, {"setpoint_storage_quota_exceeded", 0}}},
		{"at the quota", StorageUsage{InUse: 1000, Quota: 1000}, nil, []sample{
			{"setpoint_storage_size_in_use_bytes", 1000}, {"setpoint_storage_quota_exceeded", 1}}},
		{"over the quota", StorageUsage{InUse: 1200, Quota: 1000}, nil, []sample{
			{"setpoint_storage_quota_exceeded", 1}}},
		{"back under after compaction", StorageUsage{InUse: 300, Quota: 1000}, nil, []sample{
			{"setpoint_storage_size_in_use_bytes", 300}, {"setpoint_storage_quota_exceeded", 0}}},
		{"no quota", StorageUsage{InUse: 5000}, nil, []sample{
			{"setpoint_storage_size_in_use_bytes", 5000}, {"setpoint_storage_quota_bytes", -1}, {"setpoint_storage_quota_exceeded", 0}}},
		{"usage fails", StorageUsage{}, errors.New("closed"), []sample{
			{"setpoint_storage_size_in_use_bytes", -1}, {"setpoint_storage_quota_bytes", -1}, {"setpoint_storage_quota_exceeded", -1}}},
	}
	m := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.SetStorageUsage(func() (StorageUsage, error) { return tt.usage, tt.err })
			mfs := scrape(t, m)
			for _, w := range tt.want {
				got := find(mfs, w.name, id)
				switch {
				case w.value < 0 && got != nil:
					t.Errorf("%s present, want absent", w.name)
				case w.value >= 0 && got == nil:
					t.Errorf("%s absent", w.name)
				case w.value >= 0 && got.GetGauge().GetValue() != w.value:
					t.Errorf("%s = %v, want %v", w.name, got.GetGauge().GetValue(), w.value)
				}
			}
		})
	}
	m.SetStorageUsage(nil)
	if got := find(scrape(t, m), "setpoint_storage_quota_exceeded", id); got != nil {
		t.Errorf("setpoint_storage_quota_exceeded present after SetStorageUsage(nil)")
	}
}

// This module only pins the etcd server that hack/test builds for the
// tests (go.etcd.io/etcd/server/v3 is a main package); nothing imports it.
module github.com/setpoint-dev/setpoint/hack/etcd

go 1.26.8

require go.etcd.io/etcd/server/v3 v3.5.21

module github.com/setpoint-dev/setpoint

go 1.26.8

require go.etcd.io/bbolt v1.4.3

require golang.org/x/sys v0.29.0 // indirect

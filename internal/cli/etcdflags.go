package cli

import (
	"flag"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server"
)

// etcdFlags adds the flags for etcd's TLS files and prefix, as `setpoint
// server` and `setpoint migrate` both take them, and returns the
// configuration they fill in; the caller sets the servers.
func etcdFlags(fs *flag.FlagSet) *server.EtcdConfig {
	var cfg server.EtcdConfig
	fs.StringVar(&cfg.CAFile, "etcd-cafile", "", "CA bundle that verifies the etcd servers' certificates")
	fs.StringVar(&cfg.CertFile, "etcd-certfile", "", "client certificate for etcd")
	fs.StringVar(&cfg.KeyFile, "etcd-keyfile", "", "client key for etcd")
	fs.StringVar(&cfg.Prefix, "etcd-prefix", "/registry", "where the objects live in etcd, as kube-apiserver's --etcd-prefix")
	return &cfg
}

// splitURLs splits a comma-separated list, dropping empty entries.
func splitURLs(list string) []string {
	var urls []string
	for _, u := range strings.Split(list, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	return urls
}

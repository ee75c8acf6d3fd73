package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/internal/gcpacer"
	"github.com/setpoint-dev/setpoint/pkg/server"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/nodeagent"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/podgc"
	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

// dbFile is the embedded store's file inside the data directory.
const dbFile = server.DBFile

// gcPacing is the server's garbage collection target, unless --gc-percent
// or GOGC fixes one. Go's GOGC 100 lets the heap reach twice its live
// data; this process holds what kube spreads over five (the store, the
// API server's watch cache, the controllers', the scheduler's and the
// kubelets' caches) in one heap, so a large heap grows by half instead.
// A small heap keeps 256 MiB of growth, up to GOGC 100, so that it is
// not collected over and over, and up to 400 while the server allocates
// 32 MiB a second or more. In BenchmarkDeployments (live heap 600
// MB) GOGC 50 costs 28% more CPU and takes 36% off the peak memory (1761
// to 1125 MB); BenchmarkPods10k, whose live heap is about half as
// large, keeps close to GOGC 100 and runs as fast as it did with it.
// With 64 clients creating ConfigMaps (live heap about 40 MB), GOGC 400
// rather than 100 gave 5-10% more creates/s, 8% less server CPU and a
// p99 17% lower, for 100 MB more peak RSS, which goes back to the OS
// when the server goes quiet; an idle server stays at GOGC 100 at most.
var gcPacing = gcpacer.Pacer{Percent: 50, MaxPercent: 100, Headroom: 256 << 20, Quiet: 2 << 20,
	Busy: 32 << 20, BusyMaxPercent: 400}

// runServer runs the API server until ctx ends (SIGINT or SIGTERM).

func runServer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flags("server", stderr)
	dataDir := fs.String("data-dir", "./setpoint-data", "directory for the database, credentials and kubeconfig")
	listen := fs.String("listen", "127.0.0.1:6443", "address to serve HTTPS on")
	kubeconfig := fs.String("kubeconfig", "", "where to write the admin kubeconfig (default <data-dir>/kubeconfig)")
	pkiDir := fs.String("pki-dir", "", "directory of the CA, serving certificate and admin token (default <data-dir>/pki); replicas on one etcd share it so that one kubeconfig works against all of them")
	backend := fs.String("storage", "bolt", "storage backend: bolt (embedded, durable), etcd (a cluster several servers can share; see --etcd-servers) or memory")
	etcdServers := fs.String("etcd-servers", "", "etcd client URLs, comma-separated, for --storage etcd")
	etcdCfg := etcdFlags(fs)
	ctrls := fs.String("controllers", "*", "built-in controllers to run: * for all, name to enable, -name to disable ("+strings.Join(controllers.Names(), ", ")+")")
	leaderElect := fs.Bool("leader-elect", true, "run the built-in controllers only while holding the lease kube-system/setpoint-controllers, so replicas sharing a store take turns")
	eventTTL := fs.Duration("event-ttl", time.Hour, "how long Events live after their last write")
	signingDuration := fs.Duration("cluster-signing-duration", 365*24*time.Hour, "the longest certificate the csrsigning controller issues for an approved CertificateSigningRequest, as kube-controller-manager's flag")
	quota := fs.Int64("quota-backend-bytes", storage.DefaultQuota, "size in bytes of data and history past which the store refuses creates and updates (deletes and compaction still work); 0 is the default, negative turns the quota off")
	logLevel := fs.String("log-level", "info", "least severe level logged: debug, info, warn or error")
	verbosity := fs.Int("v", 0, "log verbosity as kube components take it, instead of --log-level: 0 is info, 4 and above include debug")
	profiling := fs.Bool("profiling", true, "serve Go's profiles at /debug/pprof/ to authenticated clients, as kube-apiserver's --profiling")
	authzMode := fs.String("authorization-mode", apiserver.AuthorizationRBAC, "how requests are authorized: RBAC (Roles, ClusterRoles and their bindings; system:masters may do anything) or AlwaysAllow (every authenticated request)")
	accessLog := fs.Bool("access-log", false, "log every request: method, path, user, response code and latency (never credentials)")
	requestTimeout := fs.Duration("request-timeout", time.Minute, "longest time a request other than a watch may take; clients may ask for less with ?timeout=")
	idleTimeout := fs.Duration("idle-timeout", 90*time.Second, "how long a keep-alive connection may sit idle before the server closes it")
	watchWriteTimeout := fs.Duration("watch-write-timeout", time.Minute, "how long one write to a watch client may block before the client is cut off")
	nodes := fs.Int("nodes", 1, "simulated nodes to register (sim-node-0, ...); 0 for none. Nodes labelled setpoint.dev/simulated=true are simulated too")
	clusterCIDR := fs.String("cluster-cidr", "10.244.0.0/16", "CIDR the simulated nodes' pod CIDRs (a /24 each) and pod IPs come from")
	nodeGrace := fs.Duration("node-monitor-grace-period", 50*time.Second, "how long a node may go without a heartbeat (lease renewal or status) before it is marked NotReady (Unknown) and tainted unreachable; must exceed the 10 s lease renewal interval")
	gcThreshold := fs.Int("terminated-pod-gc-threshold", podgc.DefaultTerminatedPodThreshold, "number of terminated pods that may exist before the pod garbage collector deletes the oldest; 0 or less turns that collection off")
	serviceCIDR := fs.String("service-cluster-ip-range", "10.96.0.0/12", "IPv4 CIDR Services' cluster IPs are allocated from; the first address is the kubernetes Service's")
	nodePorts := fs.String("service-node-port-range", "30000-32767", "ports NodePort and LoadBalancer Services are allocated from")
	saIssuer := fs.String("service-account-issuer", apiserver.DefaultServiceAccountIssuer, "issuer (iss) of the ServiceAccount tokens the server issues and accepts; when an https URL, its OIDC discovery documents are served at /.well-known/openid-configuration and /openid/v1/jwks")
	apiAudiences := fs.String("api-audiences", "", "audiences, comma-separated, a ServiceAccount token must be meant for to authenticate a request, and those a TokenRequest naming none gets (default: the issuer)")
	saMaxExpiration := fs.Duration("service-account-max-token-expiration", 0, "longest lifetime a TokenRequest gets; longer requests are shortened, with a warning (0: no maximum, else between 1h and 2^32s)")
	gcPercent := fs.Int("gc-percent", 0, "how far the heap may grow past its live data before a garbage collection, in percent, as GOGC sets it; negative turns collection off. 0 paces it: 50, or 256 MiB when that is more, up to 100 (400 while busy). GOGC, when set and this flag is not, fixes it too")
	var limits inflightLimits
	fs.IntVar(&limits.readOnly, "max-requests-inflight", apiserver.DefaultMaxRequestsInflight, "most read-only requests served at once, watches aside; 0 for no limit")
	fs.IntVar(&limits.mutating, "max-mutating-requests-inflight", apiserver.DefaultMaxMutatingRequestsInflight, "most mutating requests served at once; 0 for no limit")
	fs.IntVar(&limits.watches, "max-watches", apiserver.DefaultMaxWatches, "most watches open at once; 0 for no limit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	level, err := parseLogLevel(*logLevel, set["log-level"], *verbosity, set["v"])
	if err != nil {
		fmt.Fprintf(stderr, "setpoint server: %v\n", err)
		return 2
	}
	if *nodeGrace <= 10*time.Second {
		fmt.Fprintf(stderr, "setpoint server: --node-monitor-grace-period must exceed the 10s lease renewal interval, not %v\n", *nodeGrace)
		return 2
	}
	if *requestTimeout <= 0 || *watchWriteTimeout <= 0 || *idleTimeout <= 0 {
		fmt.Fprintf(stderr, "setpoint server: --request-timeout, --idle-timeout and --watch-write-timeout must be positive\n")
		return 2
	}
	disabled, err := controllers.ParseSelection(*ctrls)
	if err != nil {
		fmt.Fprintf(stderr, "setpoint server: --controllers: %v\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "setpoint server: unexpected arguments %q\n", fs.Args())
		return 2
	}
	etcdCfg.Servers = splitURLs(*etcdServers)
	switch *backend {
	case server.StorageBolt, server.StorageMemory:
	case server.StorageEtcd:
		if len(etcdCfg.Servers) == 0 {
			fmt.Fprintf(stderr, "setpoint server: --storage etcd needs --etcd-servers\n")
			return 2
		}
	default:
		fmt.Fprintf(stderr, "setpoint server: --storage must be bolt, etcd or memory, not %q\n", *backend)
		return 2
	}
	if *kubeconfig == "" {
		*kubeconfig = filepath.Join(*dataDir, "kubeconfig")
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if err := (nodeagent.Options{Nodes: *nodes, ClusterCIDR: *clusterCIDR}).Validate(); err != nil {
		fmt.Fprintf(stderr, "setpoint server: %v\n", err)
		return 2
	}
	threshold := *gcThreshold
	if threshold <= 0 {
		threshold = -1 // kube turns the collection off with any value <= 0
	}
	copts := controllers.Options{TerminatedPodGCThreshold: threshold, Disabled: disabled, LeaderElection: *leaderElect, EventTTL: *eventTTL, ClusterSigningDuration: *signingDuration, Logger: logger,
		Nodes: *nodes, ClusterCIDR: *clusterCIDR, NodeMonitorGracePeriod: *nodeGrace}
	acfg := apiserver.Config{Authorization: *authzMode, DisableProfiling: !*profiling, AccessLog: *accessLog, RequestTimeout: *requestTimeout, IdleTimeout: *idleTimeout, WatchWriteTimeout: *watchWriteTimeout}
	acfg.ServiceAccounts = apiserver.ServiceAccountConfig{Issuer: *saIssuer, APIAudiences: splitURLs(*apiAudiences), MaxTokenExpiration: *saMaxExpiration}
	if err := serviceaccount.ValidateMaxExpiration(int64(*saMaxExpiration / time.Second)); err != nil {
		fmt.Fprintf(stderr, "setpoint server: --service-account-max-token-expiration: %v\n", err)
		return 2
	}
	if err := limits.check(); err != nil {
		fmt.Fprintf(stderr, "setpoint server: %v\n", err)
		return 2
	}
	limits.apply(&acfg)
	if acfg.ServiceRanges, err = parseServiceRanges(*serviceCIDR, *nodePorts); err != nil {
		fmt.Fprintf(stderr, "setpoint server: %v\n", err)
		return 2
	}
	switch {
	case *gcPercent != 0:
		debug.SetGCPercent(*gcPercent)
	case set["gc-percent"] || os.Getenv("GOGC") == "":
		pctx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { _ = gcPacing.Start(pctx) })
		defer wg.Wait()
		defer stop()
	}
	if err := serve(ctx, server.Config{DataDir: *dataDir, PKIDir: *pkiDir, Listen: *listen, Kubeconfig: *kubeconfig,
		Storage: *backend, Etcd: *etcdCfg, QuotaBytes: effectiveQuota(*quota), API: acfg, Controllers: copts, Logger: logger}); err != nil {
		logger.Error("server failed", "err", err)
		return 1
	}
	return 0
}

// parseLogLevel picks the log level from --log-level or, when given, the
// kube-style -v: -v=N logs at Info-N, so slog's Debug (Info-4) shows from
// -v=4 on, the verbosity kube components use for debugging.
func parseLogLevel(name string, nameSet bool, v int, vSet bool) (slog.Level, error) {
	if nameSet && vSet {
		return 0, errors.New("give --log-level or -v, not both")
	}
	if vSet {
		if v < 0 {
			return 0, fmt.Errorf("-v must be 0 or more, not %d", v)
		}
		return slog.LevelInfo - slog.Level(v), nil
	}
	switch strings.ToLower(name) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("--log-level must be debug, info, warn or error, not %q", name)
}

func serve(ctx context.Context, cfg server.Config) error {
	if _, _, err := net.SplitHostPort(cfg.Listen); err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	srv, err := server.New(cfg)
	if errors.Is(err, bolt.ErrLocked) {
		return fmt.Errorf("%w; is a setpoint server already running with --data-dir %s?", err, cfg.DataDir)
	}
	if err != nil {
		return err
	}
	return srv.Run(ctx)
}

// effectiveQuota resolves --quota-backend-bytes: 0 is the default, as
// etcd reads it, and a negative value means no quota (returned as 0).
func effectiveQuota(flag int64) int64 {
	switch {
	case flag == 0:
		return storage.DefaultQuota
	case flag < 0:
		return 0
	}
	return flag
}

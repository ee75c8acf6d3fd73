package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/controllers"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// dbFile is the embedded store's file inside the data directory.
const dbFile = "setpoint.db"

// runServer runs the API server until ctx ends (SIGINT or SIGTERM).
func runServer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flags("server", stderr)
	dataDir := fs.String("data-dir", "./setpoint-data", "directory for the database, credentials and kubeconfig")
	listen := fs.String("listen", "127.0.0.1:6443", "address to serve HTTPS on")
	kubeconfig := fs.String("kubeconfig", "", "where to write the admin kubeconfig (default <data-dir>/kubeconfig)")
	backend := fs.String("storage", "bolt", "storage backend: bolt (embedded, durable) or memory")
	ctrls := fs.String("controllers", "*", "built-in controllers to run: * for all, name to enable, -name to disable ("+strings.Join(controllers.Names(), ", ")+")")
	leaderElect := fs.Bool("leader-elect", true, "run the built-in controllers only while holding the lease kube-system/setpoint-controllers, so replicas sharing a store take turns")
	eventTTL := fs.Duration("event-ttl", time.Hour, "how long Events live after their last write")
	var limits inflightLimits
	fs.IntVar(&limits.readOnly, "max-requests-inflight", apiserver.DefaultMaxRequestsInflight, "most read-only requests served at once, watches aside; 0 for no limit")
	fs.IntVar(&limits.mutating, "max-mutating-requests-inflight", apiserver.DefaultMaxMutatingRequestsInflight, "most mutating requests served at once; 0 for no limit")
	fs.IntVar(&limits.watches, "max-watches", apiserver.DefaultMaxWatches, "most watches open at once; 0 for no limit")
	if err := fs.Parse(args); err != nil {
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
	if *backend != "bolt" && *backend != "memory" {
		fmt.Fprintf(stderr, "setpoint server: --storage must be bolt or memory, not %q\n", *backend)
		return 2
	}
	if *kubeconfig == "" {
		*kubeconfig = filepath.Join(*dataDir, "kubeconfig")
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	copts := controllers.Options{Disabled: disabled, LeaderElection: *leaderElect, EventTTL: *eventTTL, Logger: logger}
	if err := limits.check(); err != nil {
		fmt.Fprintf(stderr, "setpoint server: %v\n", err)
		return 2
	}
	if err := serve(ctx, logger, *dataDir, *listen, *kubeconfig, *backend, copts, limits); err != nil {
		logger.Error("server failed", "err", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, logger *slog.Logger, dataDir, listen, kubeconfig, backend string, copts controllers.Options, limits inflightLimits) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	var hosts []string
	if host != "" && host != "0.0.0.0" && host != "::" {
		hosts = append(hosts, host)
	}
	creds, err := credentials.LoadOrCreate(credentials.Options{Dir: dataDir, Hosts: hosts})
	if err != nil {
		return err
	}
	var store storage.Interface
	var size func() (int64, error)
	switch backend {
	case "memory":
		store = memory.New()
	default:
		path := filepath.Join(dataDir, dbFile)
		b, err := bolt.Open(path, bolt.Options{})
		if err != nil {
			return err
		}
		store = b
		size = func() (int64, error) {
			fi, err := os.Stat(path)
			if err != nil {
				return 0, err
			}
			return fi.Size(), nil
		}
	}
	defer store.Close()

	cfg := apiserver.Config{
		Storage:       store,
		Authenticator: creds.Authenticator(),
		Logger:        logger,
		StorageSize:   size,
	}
	limits.apply(&cfg)
	api, err := apiserver.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	url := "https://" + kubeconfigHost(ln.Addr())
	if err := credentials.WriteKubeconfig(kubeconfig, url, creds.CAPEM, creds.AdminToken); err != nil {
		ln.Close()
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// Cancel before waiting: the helpers below end with ctx, also when
	// the server stops on an error.
	defer wg.Wait()
	defer cancel()
	compactor := &storage.Compactor{Store: store, Retention: storage.DefaultRetention, Logger: logger}
	wg.Go(func() {
		if err := compactor.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
			logger.Warn("compactor stopped", "err", err)
		}
	})
	// The API outlives the controllers: they stop first (releasing their
	// lease), then the server.
	apiCtx, stopAPI := context.WithCancel(context.WithoutCancel(ctx))
	defer stopAPI()
	ctrlDone := make(chan struct{})
	wg.Go(func() {
		<-ctx.Done()
		<-ctrlDone
		stopAPI()
	})
	wg.Go(func() {
		defer close(ctrlDone)
		select {
		case <-api.Ready():
			abs, _ := filepath.Abs(kubeconfig)
			logger.Info("setpoint API server ready", "url", url, "kubeconfig", abs, "storage", backend)
		case <-ctx.Done():
			return
		}
		if len(copts.Disabled) == len(controllers.Names()) {
			return
		}
		// The controllers are clients of this server like any other,
		// over loopback, as the server's own identity so that the
		// in-flight limits never starve them.
		loopback := &rest.Config{
			Host: url, BearerToken: creds.LoopbackToken,
			TLSClientConfig: rest.TLSClientConfig{CAData: creds.CAPEM},
			QPS:             -1,
		}
		if err := controllers.Run(ctx, loopback, copts); err != nil {
			logger.Error("built-in controllers stopped", "err", err)
		}
	})
	err = api.Run(apiCtx, ln, creds.TLSConfig())
	cancel() // the server failed on its own: stop the rest too
	return err
}

// kubeconfigHost is the address clients should dial: a wildcard listen
// address is reached through loopback.
func kubeconfigHost(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	ip := tcp.IP
	if ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(tcp.Port))
}

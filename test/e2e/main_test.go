package e2e_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

const (
	// readyTimeout bounds how long a server may take to log that it is ready.
	readyTimeout = 20 * time.Second
	// stopTimeout bounds how long a server may take to exit after a signal.
	stopTimeout = 15 * time.Second
	// bindAttempts is how many free ports a start tries before giving up.
	bindAttempts = 5
)

// setpointBin is the binary TestMain builds for every test to run.
var setpointBin string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "setpoint-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	setpointBin = filepath.Join(dir, "setpoint")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", setpointBin, "github.com/setpoint-dev/setpoint/cmd/setpoint")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building setpoint:", err)
		return 1
	}

	return m.Run()
}

// ---------------------------------------------------------------------------
// The setpoint server as a child process.

// serverConfig says how to start `setpoint server`.
type serverConfig struct {
	dataDir    string   // --data-dir; required
	kubeconfig string   // --kubeconfig; empty leaves the flag out (DIR/kubeconfig)
	storage    string   // --storage; empty leaves the flag out (bolt)
	args       []string // further flags
}

// server is one running `setpoint server`.
type server struct {
	cfg        serverConfig
	addr       string // host:port it listens on
	url        string // https://host:port
	kubeconfig string // the absolute path its ready line reported

	cmd     *exec.Cmd
	log     *logBuffer // stdout and stderr, interleaved
	exited  chan struct{}
	waitErr error // cmd.Wait's error; read after exited is closed

	stopOnce sync.Once
}

var errAddrInUse = errors.New("address already in use")

// launchServer starts a server on a free loopback port, retrying on another
// port when the one picked was taken in the meantime, and waits until it
// logs that it is ready.
func launchServer(cfg serverConfig) (*server, error) {
	var err error
	for range bindAttempts {
		var addr string
		if addr, err = freeAddr(); err != nil {
			return nil, err
		}
		var s *server
		s, err = launchOnce(cfg, addr)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errAddrInUse) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("no free port after %d attempts: %w", bindAttempts, err)
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

func serverArgs(cfg serverConfig, addr string) []string {
	args := []string{"server", "--data-dir", cfg.dataDir, "--listen", addr}
	if cfg.kubeconfig != "" {
		args = append(args, "--kubeconfig", cfg.kubeconfig)
	}
	if cfg.storage != "" {
		args = append(args, "--storage", cfg.storage)
	}
	return append(args, cfg.args...)
}

// readyLine matches the line the server logs once it serves, capturing the
// kubeconfig path (bare or quoted, as slog's text handler writes it).
var readyLine = regexp.MustCompile(`msg="setpoint API server ready".*\bkubeconfig=("(?:[^"\\]|\\.)*"|\S+)`)

func launchOnce(cfg serverConfig, addr string) (*server, error) {
	s := &server{
		cfg:    cfg,
		addr:   addr,
		url:    "https://" + addr,
		log:    newLogBuffer(),
		exited: make(chan struct{}),
	}
	s.cmd = exec.Command(setpointBin, serverArgs(cfg, addr)...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = childProcAttr()
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()

	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	for {
		text, changed := s.log.snapshot()
		if m := readyLine.FindStringSubmatch(text); m != nil {
			path := m[1]
			if strings.HasPrefix(path, `"`) {
				var err error
				if path, err = strconv.Unquote(path); err != nil {
					s.kill()
					return nil, fmt.Errorf("ready line: kubeconfig %s: %v", m[1], err)
				}
			}
			s.kubeconfig = path
			return s, nil
		}
		select {
		case <-changed:
		case <-s.exited:
			text := s.log.String()
			if readyLine.MatchString(text) {
				continue // the line came with the last write; report the exit at stop
			}
			err := fmt.Errorf("setpoint server exited before it was ready (%v); log:\n%s", s.waitErr, text)
			if strings.Contains(text, "address already in use") {
				err = fmt.Errorf("%w: %w", errAddrInUse, err)
			}
			return nil, err
		case <-deadline.C:
			s.kill()
			return nil, fmt.Errorf("setpoint server not ready within %v; log:\n%s", readyTimeout, s.log.String())
		}
	}
}

// kill ends the server at once and waits for it.
func (s *server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// stop sends sig and waits (bounded) for the server to exit, then reports
// an unclean exit: a non-zero exit code, a kill, or an ERROR in the log.
// Only the first call does anything; later calls return nil.
func (s *server) stop(sig os.Signal) (err error) {
	s.stopOnce.Do(func() { err = s.doStop(sig) })
	return err
}

func (s *server) doStop(sig os.Signal) error {
	select {
	case <-s.exited:
		return fmt.Errorf("setpoint server had already exited (%v) before %v; log:\n%s", s.waitErr, sig, s.log.String())
	default:
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.kill()
		return fmt.Errorf("signal %v: %v", sig, err)
	}
	select {
	case <-s.exited:
	case <-time.After(stopTimeout):
		s.kill()
		return fmt.Errorf("setpoint server did not exit within %v of %v; log:\n%s", stopTimeout, sig, s.log.String())
	}
	var problems []string
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		problems = append(problems, fmt.Sprintf("exit after %v: %v, want exit code 0", sig, s.cmd.ProcessState))
	}
	if strings.Contains(s.log.String(), "level=ERROR") {
		problems = append(problems, "log has level=ERROR")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s; log:\n%s", strings.Join(problems, "; "), s.log.String())
	}
	return nil
}

// startServer starts a server for one test and stops it with SIGTERM at
// cleanup, failing the test on an unclean exit.
func startServer(t *testing.T, cfg serverConfig) *server {
	t.Helper()
	s, err := launchServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.stop(syscall.SIGTERM); err != nil {
			t.Errorf("stopping setpoint server: %v", err)
		} else if t.Failed() {
			t.Logf("setpoint server log:\n%s", s.log.String())
		}
	})
	return s
}

// stopServer stops s now, failing the test on an unclean exit.
func stopServer(t *testing.T, s *server, sig os.Signal) {
	t.Helper()
	if err := s.stop(sig); err != nil {
		t.Fatalf("stopping setpoint server with %v: %v", sig, err)
	}
}

// startFreshServer starts a server on a new data directory with the
// default flags, for one test and its subtests to share.
func startFreshServer(t *testing.T) *server {
	t.Helper()
	return startServer(t, serverConfig{dataDir: filepath.Join(t.TempDir(), "data")})
}

// logBuffer collects a child's output and tells waiters when it grows.
type logBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func newLogBuffer() *logBuffer { return &logBuffer{changed: make(chan struct{})} }

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	close(b.changed)
	b.changed = make(chan struct{})
	return n, err
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// snapshot returns the text so far and a channel closed on the next write.
func (b *logBuffer) snapshot() (string, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String(), b.changed
}

// ---------------------------------------------------------------------------
// Kubeconfig and a plain HTTPS client.

// kubeconfigFile is the part of a kubeconfig the tests read.
type kubeconfigFile struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			CertificateAuthorityData string `json:"certificate-authority-data"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			Token string `json:"token"`
		} `json:"user"`
	} `json:"users"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
}

// clientConfig is what a kubeconfig's current context says about reaching
// the server.
type clientConfig struct {
	server string
	caPEM  []byte
	token  string
}

func readKubeconfig(t *testing.T, path string) clientConfig {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kc kubeconfigFile
	if err := yaml.Unmarshal(data, &kc); err != nil {
		t.Fatalf("kubeconfig %s: %v", path, err)
	}
	var cc clientConfig
	var clusterName, userName string
	for _, c := range kc.Contexts {
		if c.Name == kc.CurrentContext {
			clusterName, userName = c.Context.Cluster, c.Context.User
		}
	}
	if clusterName == "" || userName == "" {
		t.Fatalf("kubeconfig %s: current-context %q names no context with a cluster and user:\n%s", path, kc.CurrentContext, data)
	}
	for _, c := range kc.Clusters {
		if c.Name == clusterName {
			cc.server = c.Cluster.Server
			if cc.caPEM, err = base64.StdEncoding.DecodeString(c.Cluster.CertificateAuthorityData); err != nil {
				t.Fatalf("kubeconfig %s: certificate-authority-data: %v", path, err)
			}
		}
	}
	for _, u := range kc.Users {
		if u.Name == userName {
			cc.token = u.User.Token
		}
	}
	if cc.server == "" || len(cc.caPEM) == 0 || cc.token == "" {
		t.Fatalf("kubeconfig %s lacks a server, CA or token:\n%s", path, data)
	}
	return cc
}

// httpClient trusts only caPEM.
func httpClient(t *testing.T, caPEM []byte) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("no certificate in the kubeconfig's CA data")
	}
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
	}
	// Idle connections would only slow the server's graceful stop.
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Timeout: 10 * time.Second, Transport: tr}
}

// get sends GET url+path with the bearer token, if any, and returns the
// status code, Content-Type and body.
func get(t *testing.T, c *http.Client, url, path, token string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	if _, err := body.ReadFrom(resp.Body); err != nil {
		t.Fatalf("GET %s: reading body: %v", path, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), body.Bytes()
}

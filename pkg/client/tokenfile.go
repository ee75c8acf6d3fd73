package client

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// tokenFileMaxAge is how long a token read from a file is used without
// reading the file again, even if it seems unchanged: client-go's period,
// half the time between the kubelet refreshing a projected token and the
// old one expiring.
const tokenFileMaxAge = time.Minute

// tokenFile is a bearer token kept in a file that is replaced as the token
// rotates, as the kubelet does with a pod's service account token.
// client-go reads such a file again once a minute; this reads it again as
// soon as it changes (a stat per request, cheap beside the request), and
// at least once a minute for file systems whose times are coarse, so a
// rotated token is used from the next request on.
type tokenFile struct {
	path string
	log  *slog.Logger
	now  func() time.Time

	mu     sync.Mutex
	token  string
	info   os.FileInfo // of the file token was read from; nil if none
	readAt time.Time
	broken bool // the last refresh failed; logged once until one works
}

// errEmptyToken is a token file holding only white space.
var errEmptyToken = errors.New("token file is empty")

// newTokenFile reads path; fallback is used while the file cannot be read,
// as rest.Config.BearerToken is beside BearerTokenFile. Without either, it
// fails as client-go does.
func newTokenFile(path, fallback string, log *slog.Logger) (*tokenFile, error) {
	tf := &tokenFile{path: path, log: log, now: time.Now, token: strings.TrimSpace(fallback)}
	if err := tf.refresh(); err != nil && tf.token == "" {
		return nil, fmt.Errorf("client: bearer token file: %w", err)
	}
	return tf, nil
}

// current returns the token to send, reading the file first if it changed.
func (tf *tokenFile) current() string {
	info, statErr := os.Stat(tf.path)
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if statErr == nil && !tf.stale(info) {
		return tf.token
	}
	err := statErr
	if err == nil {
		err = tf.refreshLocked()
	}
	switch {
	case err != nil && !tf.broken:
		// Keep the last token: it may well still be valid, and the
		// server says so if not.
		tf.broken = true
		tf.log.Warn("bearer token file unreadable, keeping the last token", "path", tf.path, "err", err)
	case err == nil:
		tf.broken = false
	}
	return tf.token
}

// stale reports whether the file at info is not the one last read, or was
// read too long ago.
func (tf *tokenFile) stale(info os.FileInfo) bool {
	return tf.info == nil || !os.SameFile(tf.info, info) ||
		!info.ModTime().Equal(tf.info.ModTime()) || info.Size() != tf.info.Size() ||
		tf.now().Sub(tf.readAt) >= tokenFileMaxAge
}

func (tf *tokenFile) refresh() error {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	return tf.refreshLocked()
}

func (tf *tokenFile) refreshLocked() error {
	f, err := os.Open(tf.path)
	if err != nil {
		return err
	}
	defer f.Close()
	// Stat the open file, so what is recorded is what was read even if
	// the path is replaced meanwhile.
	info, err := f.Stat()
	if err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return errEmptyToken
	}
	tf.token, tf.info, tf.readAt = token, info, tf.now()
	return nil
}

// roundTripper sends the current token on requests that carry no
// Authorization of their own.
func (tf *tokenFile) roundTripper(base http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Header.Get("Authorization") != "" {
			return base.RoundTrip(req)
		}
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+tf.current())
		return base.RoundTrip(req)
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// withTokenFile moves cfg's BearerTokenFile (and BearerToken) into a
// transport wrapper that re-reads the file as it changes. cfg is the
// caller's copy and is changed in place.
func withTokenFile(cfg *rest.Config, log *slog.Logger) error {
	if cfg.BearerTokenFile == "" {
		return nil
	}
	if cfg.Username != "" || cfg.Password != "" {
		// client-go refuses the pair too.
		return errors.New("client: username/password or bearer token may be set, but not both")
	}
	tf, err := newTokenFile(cfg.BearerTokenFile, cfg.BearerToken, log)
	if err != nil {
		return err
	}
	cfg.BearerToken, cfg.BearerTokenFile = "", ""
	cfg.Wrap(tf.roundTripper)
	return nil
}

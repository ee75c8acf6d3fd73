// Package etcd is the storage backend for more than one machine: the
// store kept in an etcd cluster, which several API servers can share.
//
// It maps storage.Interface one to one onto etcd's API. The store's
// revision is etcd's (both start at 1 and advance by one per write); a
// Create is a transaction on the key's create revision being 0, an Update
// or Delete one on its mod revision; a List reads one revision, paged
// with the same continue tokens as the other backends; a Watch is an etcd
// watch with previous values, restarted from where it stopped when its
// reader falls behind; Compact is etcd's compaction.
package etcd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Options configure a Store.
type Options struct {
	// Endpoints are the etcd client URLs.
	Endpoints []string
	// Prefix is put before every key in etcd, so that several stores can
	// share a cluster; empty keeps keys as they are.
	Prefix string
	// Root, when set, is what every key starts with, and Prefix takes
	// its place in etcd: with Root "/registry" and Prefix "/other", the
	// key /registry/pods/a is /other/pods/a in etcd. Other keys are
	// refused.
	Root string
	// TLS, when set, is the client's TLS configuration.
	TLS *tls.Config
	// DialTimeout bounds each attempt to connect (default 5 s).
	DialTimeout time.Duration
}

// Store is a storage.Interface on an etcd cluster.
type Store struct {
	cli    *clientv3.Client
	prefix string
	root   string

	closing   chan struct{}
	closeOnce sync.Once
	closed    atomic.Bool
	watches   sync.WaitGroup
}

var _ storage.Interface = (*Store)(nil)

// Open connects to the cluster. It does not wait for it: a cluster that
// cannot be reached fails the first request, and the client keeps
// trying to connect in the background.
func Open(opts Options) (*Store, error) {
	if len(opts.Endpoints) == 0 {
		return nil, errors.New("etcd: no endpoints")
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 5 * time.Second
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   opts.Endpoints,
		TLS:         opts.TLS,
		DialTimeout: opts.DialTimeout,
		// Keepalives find a dead member on an idle connection, so that
		// watches move to another one.
		DialKeepAliveTime:    30 * time.Second,
		DialKeepAliveTimeout: 10 * time.Second,
		Logger:               zap.NewNop(),
		// Requests of up to etcd's own limit, with room for the
		// request's framing.
		MaxCallSendMsgSize: maxRequestBytes + 64<<10,
	})
	if err != nil {
		return nil, fmt.Errorf("etcd: %w", err)
	}
	return &Store{cli: cli, prefix: opts.Prefix, root: opts.Root, closing: make(chan struct{})}, nil
}

// maxRequestBytes is etcd's default --max-request-bytes.
const maxRequestBytes = 1536 << 10

// Close implements storage.Interface.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		close(s.closing)
		s.watches.Wait()
		err = s.cli.Close()
	})
	return err
}

// key is where k lives in etcd, and unkey the inverse. check and
// checkPrefix have made sure a key or prefix fits under root.
func (s *Store) key(k string) string {
	if len(k) < len(s.root) {
		return s.prefix // a prefix of root: everything
	}
	return s.prefix + k[len(s.root):]
}

func (s *Store) unkey(k []byte) string { return s.root + string(k[len(s.prefix):]) }

// checkPrefix refuses a list or watch prefix that cannot hold a key.
func (s *Store) checkPrefix(prefix string) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := storage.ValidatePrefix(prefix); err != nil {
		return err
	}
	if !strings.HasPrefix(prefix, s.root) && !strings.HasPrefix(s.root, prefix) {
		return fmt.Errorf("%w %q: not under %s", storage.ErrInvalidKey, prefix, s.root)
	}
	return nil
}

// Get implements storage.Interface.
func (s *Store) Get(ctx context.Context, key string) (storage.KeyValue, error) {
	if err := s.check(key); err != nil {
		return storage.KeyValue{}, err
	}
	resp, err := s.cli.Get(ctx, s.key(key))
	if err != nil {
		return storage.KeyValue{}, s.fromEtcd(ctx, err, 0)
	}
	if len(resp.Kvs) == 0 {
		return storage.KeyValue{}, storage.ErrNotFound
	}
	kv := resp.Kvs[0]
	return storage.KeyValue{Key: key, Value: kv.Value, Revision: kv.ModRevision}, nil
}

// Create implements storage.Interface.
func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	if err := s.check(key); err != nil {
		return 0, err
	}
	k := s.key(key)
	resp, err := s.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, string(value))).
		Commit()
	if err != nil {
		return 0, s.fromEtcd(ctx, err, 0)
	}
	if !resp.Succeeded {
		return 0, storage.ErrAlreadyExists
	}
	return resp.Header.Revision, nil
}

// Update implements storage.Interface.
func (s *Store) Update(ctx context.Context, key string, value []byte, ifRevision int64) (int64, error) {
	if err := s.check(key); err != nil {
		return 0, err
	}
	k := s.key(key)
	resp, err := s.cli.Txn(ctx).
		If(precondition(k, ifRevision)).
		Then(clientv3.OpPut(k, string(value))).
		Else(clientv3.OpGet(k)).
		Commit()
	if err != nil {
		return 0, s.fromEtcd(ctx, err, 0)
	}
	if !resp.Succeeded {
		return 0, failed(key, ifRevision, resp)
	}
	return resp.Header.Revision, nil
}

// Delete implements storage.Interface.
func (s *Store) Delete(ctx context.Context, key string, ifRevision int64) (storage.KeyValue, int64, error) {
	if err := s.check(key); err != nil {
		return storage.KeyValue{}, 0, err
	}
	k := s.key(key)
	resp, err := s.cli.Txn(ctx).
		If(precondition(k, ifRevision)).
		Then(clientv3.OpDelete(k, clientv3.WithPrevKV())).
		Else(clientv3.OpGet(k)).
		Commit()
	if err != nil {
		return storage.KeyValue{}, 0, s.fromEtcd(ctx, err, 0)
	}
	if !resp.Succeeded {
		return storage.KeyValue{}, 0, failed(key, ifRevision, resp)
	}
	del := resp.Responses[0].GetResponseDeleteRange()
	if del == nil || len(del.PrevKvs) == 0 {
		return storage.KeyValue{}, 0, fmt.Errorf("etcd: delete of %s returned no previous value", key)
	}
	prev := del.PrevKvs[0]
	return storage.KeyValue{Key: key, Value: prev.Value, Revision: prev.ModRevision}, resp.Header.Revision, nil
}

// precondition holds when the key exists and, if ifRevision is set, was
// last written at ifRevision.
func precondition(k string, ifRevision int64) clientv3.Cmp {
	if ifRevision == 0 {
		return clientv3.Compare(clientv3.CreateRevision(k), ">", 0)
	}
	return clientv3.Compare(clientv3.ModRevision(k), "=", ifRevision)
}

// failed turns a transaction whose precondition failed, and which read
// the key instead, into the storage error.
func failed(key string, ifRevision int64, resp *clientv3.TxnResponse) error {
	get := resp.Responses[0].GetResponseRange()
	if get == nil || len(get.Kvs) == 0 {
		return storage.ErrNotFound
	}
	return &storage.ConflictError{Key: key, Expected: ifRevision, Current: get.Kvs[0].ModRevision}
}

// Revision implements storage.Interface. It is a linearizable read, so it
// is at least every revision any member has answered.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	if s.closed.Load() {
		return 0, storage.ErrClosed
	}
	resp, err := s.cli.Get(ctx, s.key("/"), clientv3.WithCountOnly())
	if err != nil {
		return 0, s.fromEtcd(ctx, err, 0)
	}
	return resp.Header.Revision, nil
}

// List implements storage.Interface.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResult, error) {
	if err := s.checkPrefix(prefix); err != nil {
		return storage.ListResult{}, err
	}
	rev := opts.Revision
	from := s.key(prefix)
	if opts.Continue != "" {
		r, last, err := storage.DecodeContinue(prefix, opts.Continue)
		if err != nil {
			return storage.ListResult{}, err
		}
		rev, from = r, s.key(last)+"\x00"
	}
	if from == "" {
		from = "\x00" // the whole keyspace: etcd wants a key
	}
	ops := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(s.key(prefix)))}
	if rev > 0 {
		ops = append(ops, clientv3.WithRev(rev))
	}
	if opts.Limit > 0 {
		ops = append(ops, clientv3.WithLimit(opts.Limit))
	}
	resp, err := s.cli.Get(ctx, from, ops...)
	if err != nil {
		return storage.ListResult{}, s.fromEtcd(ctx, err, rev)
	}
	if rev == 0 {
		rev = resp.Header.Revision
	}
	res := storage.ListResult{Revision: rev, Items: make([]storage.KeyValue, len(resp.Kvs))}
	for i, kv := range resp.Kvs {
		res.Items[i] = storage.KeyValue{Key: s.unkey(kv.Key), Value: kv.Value, Revision: kv.ModRevision}
	}
	if resp.More && len(res.Items) > 0 {
		res.Continue = storage.EncodeContinue(prefix, res.Items[len(res.Items)-1].Key, rev)
	}
	return res, nil
}

// Compact implements storage.Interface.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	_, err := s.cli.Compact(ctx, revision)
	if errors.Is(err, rpctypes.ErrCompacted) {
		return nil // at or below the last compaction: nothing to do
	}
	if err != nil {
		return s.fromEtcd(ctx, err, revision)
	}
	return nil
}

func (s *Store) check(key string) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := storage.ValidateKey(key); err != nil {
		return err
	}
	if !strings.HasPrefix(key, s.root) {
		return fmt.Errorf("%w %q: not under %s", storage.ErrInvalidKey, key, s.root)
	}
	return nil
}

// fromEtcd maps an etcd error on a request about revision rev to the
// storage error.
func (s *Store) fromEtcd(ctx context.Context, err error, rev int64) error {
	switch {
	case s.closed.Load():
		return storage.ErrClosed
	case errors.Is(err, rpctypes.ErrFutureRev):
		return storage.ErrFutureRevision
	case errors.Is(err, rpctypes.ErrCompacted):
		return s.compacted(ctx, rev)
	case errors.Is(err, rpctypes.ErrRequestTooLarge):
		return fmt.Errorf("%w: %w", storage.ErrTooLarge, err)
	}
	return &Error{Err: err}
}

// compacted is the CompactedError for a request at rev, with the oldest
// revision still readable. etcd names that only in a watch's answer, so
// one is asked for, from the first revision, and ended at once.
func (s *Store) compacted(ctx context.Context, rev int64) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	oldest := rev + 1
	wch := s.cli.Watch(ctx, s.key("/"), clientv3.WithRev(1), clientv3.WithCreatedNotify())
	if resp, ok := <-wch; ok && resp.CompactRevision > 0 {
		oldest = resp.CompactRevision
	}
	return &storage.CompactedError{Requested: rev, Oldest: oldest}
}

// Error is a failure to reach or use etcd, as opposed to an answer about
// the data. It matches storage.ErrUnavailable and unwraps to the client's
// error (a context error when the request ran out of time).
type Error struct{ Err error }

func (e *Error) Error() string {
	if errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled) {
		return "etcd: no answer in time (" + e.Err.Error() + ")"
	}
	return "etcd: " + strings.TrimPrefix(e.Err.Error(), "etcdserver: ")
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, storage.ErrUnavailable) hold.
func (e *Error) Is(target error) bool { return target == storage.ErrUnavailable }

package etcd_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/setpoint-dev/setpoint/internal/etcdtest"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/etcd"
)

// storm is 64 writers creating keys through one store until stopped,
// recording every write the store acknowledged.
type storm struct {
	s      *etcd.Store
	prefix string
	mu     sync.Mutex
	acked  map[string]int64
	failed atomic.Int64
	stop   chan struct{}
	wg     sync.WaitGroup
}

func startStorm(s *etcd.Store, round int) *storm {
	st := &storm{s: s, prefix: fmt.Sprintf("/storm/%d/", round), acked: map[string]int64{}, stop: make(chan struct{})}
	for w := range 64 {
		st.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-st.stop:
					return
				default:
				}
				key := fmt.Sprintf("%s%d/%d", st.prefix, w, i)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				rev, err := s.Create(ctx, key, []byte(key))
				cancel()
				if err != nil {
					// Not acknowledged: it may or may not have happened.
					st.failed.Add(1)
					continue
				}
				st.mu.Lock()
				st.acked[key] = rev
				st.mu.Unlock()
			}
		})
	}
	return st
}

// end stops the writers and checks every acknowledged write is there.
func (st *storm) end(t *testing.T) int {
	t.Helper()
	close(st.stop)
	st.wg.Wait()
	res, err := st.s.List(t.Context(), st.prefix, storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]int64, len(res.Items))
	for _, kv := range res.Items {
		got[kv.Key] = kv.Revision
	}
	for key, rev := range st.acked {
		if got[key] != rev {
			t.Fatalf("acknowledged %s@%d: found at %d", key, rev, got[key])
		}
	}
	return len(st.acked)
}

// TestKillMemberDuringStorm kills one member of three with SIGKILL during
// a 64-writer storm, a different one each round, and brings it back:
// every acknowledged write is present and the revision never goes back.
func TestKillMemberDuringStorm(t *testing.T) {
	c := etcdtest.Start(t, 3)
	s := open(t, c, "")
	defer s.Close()
	var lastRev int64
	total, failed := 0, int64(0)
	for round := range 20 {
		st := startStorm(s, round)
		time.Sleep(100 * time.Millisecond)
		m := c.Members[round%3]
		m.Kill()
		time.Sleep(100 * time.Millisecond)
		m.Restart(t)
		total += st.end(t)
		failed += st.failed.Load()
		rev, err := s.Revision(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if rev < lastRev {
			t.Fatalf("round %d: revision went back from %d to %d", round, lastRev, rev)
		}
		lastRev = rev
	}
	t.Logf("20 rounds: %d acknowledged writes all present, %d not acknowledged, revision %d", total, failed, lastRev)
}

// TestPauseLeader stops the leader member with SIGSTOP for longer than
// the election timeout: the others elect a new leader, writes go on, and
// after the old leader resumes no acknowledged write is missing.
func TestPauseLeader(t *testing.T) {
	c := etcdtest.Start(t, 3)
	s := open(t, c, "")
	defer s.Close()
	leader := leaderOf(t, c)
	st := startStorm(s, 0)
	time.Sleep(300 * time.Millisecond)
	leader.Pause()
	paused := time.Now()
	before := acked(st)
	time.Sleep(3 * time.Second) // etcd's election timeout is 1 s
	during := acked(st) - before
	leader.Resume()
	time.Sleep(500 * time.Millisecond)
	n := st.end(t)
	if during == 0 {
		t.Fatalf("no write acknowledged in the %v the leader was paused", time.Since(paused))
	}
	if l := leaderOf(t, c); l == leader {
		t.Logf("the old leader won the election again")
	}
	t.Logf("%d acknowledged writes all present, %d while the leader was paused, %d not acknowledged", n, during, st.failed.Load())
}

func acked(st *storm) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.acked)
}

// leaderOf finds the member that leads the cluster.
func leaderOf(t *testing.T, c *etcdtest.Cluster) *etcdtest.Member {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for _, m := range c.Members {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		st, err := cli.Status(ctx, m.ClientURL)
		cancel()
		if err == nil && st.Leader == st.Header.MemberId {
			return m
		}
	}
	t.Fatal("no leader")
	return nil
}

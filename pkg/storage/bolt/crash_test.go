package bolt_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

// crashChildEnv names the database a re-executed test binary writes to.
const crashChildEnv = "SETPOINT_CRASH_CHILD_DB"

// durableEnv, when set in the child, has it copy the database file at
// every checkpoint to <db>.durable: what the disk holds for certain.
const durableEnv = "SETPOINT_CRASH_CHILD_DURABLE"

// TestCrashChild is the write storm, with compaction alongside, run in a
// child process by TestCrash;
// on its own it does nothing. Every write the store acknowledges is
// printed as "<key> <revision> <value>" before the next one starts.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		return
	}
	if os.Getenv(durableEnv) != "" {
		bolt.SetAfterCheckpointSync(func() {
			b, err := os.ReadFile(path)
			if err == nil {
				err = os.WriteFile(path+".durable.tmp", b, 0o600)
			}
			if err == nil {
				err = os.Rename(path+".durable.tmp", path+".durable")
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		})
	}
	s, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var mu sync.Mutex
	ack := func(key string, rev int64, value string) {
		mu.Lock()
		defer mu.Unlock()
		// One write call per line, so lines never interleave.
		os.Stdout.WriteString(fmt.Sprintf("%s %d %s\n", key, rev, value))
	}
	ctx := context.Background()
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var wg sync.WaitGroup
	// Compaction runs alongside, so kills also land inside it.
	wg.Go(func() {
		for {
			time.Sleep(10 * time.Millisecond)
			if rev, err := s.Revision(ctx); err == nil && rev > 200 {
				if err := s.Compact(ctx, rev-100); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
			}
		}
	})
	for w := range 8 {
		wg.Go(func() {
			counter := fmt.Sprintf("/counter/%d", w)
			s.Create(ctx, counter, []byte("0")) // exists after the first run
			for i := 0; ; i++ {
				key := fmt.Sprintf("/storm/%s/%d/%d", run, w, i)
				rev, err := s.Create(ctx, key, []byte(key))
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				ack(key, rev, key)
				value := strconv.Itoa(i)
				if rev, err = s.Update(ctx, counter, []byte(value), 0); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				ack(counter, rev, value)
			}
		})
	}
	wg.Wait()
}

type acked struct {
	rev   int64
	value string
}

// TestCrash kills a writing child with SIGKILL at a random moment, 20
// times over one database: after every reopen each acknowledged write is
// present and the revision has not gone backwards.
func TestCrash(t *testing.T) {
	crashRounds(t, 20, func(string) {})
}

// TestPowerLoss is TestCrash as if the machine lost power: of what the
// child wrote to the database file since its last checkpoint, only the
// meta pages reached the disk, the worst case for a file whose commits
// are not synced. The write-ahead log, which is synced, is kept.
func TestPowerLoss(t *testing.T) {
	t.Setenv(durableEnv, "1")
	crashRounds(t, 10, func(path string) { loseUnsynced(t, path) })
}

// crashRounds runs and kills the child rounds times over one database,
// calling afterKill on the file before each reopen.
func crashRounds(t *testing.T, rounds int, afterKill func(path string)) {
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("running as the crash child")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	path := filepath.Join(t.TempDir(), "db")
	var lastRev int64
	for round := range rounds {
		acks := runAndKill(t, path, time.Duration(5+rng.IntN(150))*time.Millisecond)
		afterKill(path)
		lastRev = checkAcked(t, round, path, acks, lastRev)
	}
}

// loseUnsynced rewrites the file at path as the last checkpoint's copy
// with the current meta pages, at the current size.
func loseUnsynced(t *testing.T, path string) {
	t.Helper()
	durable, err := os.ReadFile(path + ".durable")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img := make([]byte, max(len(cur), len(durable)))
	copy(img, durable)
	metas := 2 * os.Getpagesize()
	copy(img[:metas], cur[:metas])
	if err := os.WriteFile(path, img, 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkAcked reopens the store at path after a kill and checks that every
// acknowledged write is there and the revision did not go back from
// lastRev. It returns the revision of one more write.
func checkAcked(t *testing.T, round int, path string, acks map[string]acked, lastRev int64) int64 {
	t.Helper()
	s, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatalf("round %d: reopen: %v", round, err)
	}
	defer s.Close()
	rev, _ := s.Revision(context.Background())
	if rev < lastRev {
		t.Fatalf("round %d: revision went back from %d to %d", round, lastRev, rev)
	}
	for key, a := range acks {
		kv, err := s.Get(context.Background(), key)
		if err != nil {
			t.Fatalf("round %d: acknowledged %s@%d lost: %v", round, key, a.rev, err)
		}
		if a.rev > rev {
			t.Fatalf("round %d: acknowledged revision %d above the store's %d", round, a.rev, rev)
		}
		// A counter may have moved on past its last acknowledgement
		// (the write was durable but the child died before saying so);
		// it may never be behind it.
		if kv.Revision < a.rev || (kv.Revision == a.rev && string(kv.Value) != a.value) {
			t.Fatalf("round %d: %s is %s@%d, acknowledged %s@%d", round, key, kv.Value, kv.Revision, a.value, a.rev)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	next, err := s.Create(context.Background(), fmt.Sprintf("/after/%d", round), nil)
	if err != nil || next != rev+1 {
		t.Fatalf("round %d: write after reopen at %d, %v; want %d", round, next, err, rev+1)
	}
	t.Logf("round %d: %d acknowledged keys checked, revision %d", round, len(acks), rev)
	return next
}

// runAndKill starts the child, lets it write for about d after its first
// acknowledgement, kills it and returns the last acknowledgement per key.
func runAndKill(t *testing.T, path string, d time.Duration) map[string]acked {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acks := map[string]acked{}
	first := make(chan struct{})
	read := make(chan error)
	go func() {
		sc := bufio.NewScanner(out)
		for n := 0; sc.Scan(); n++ {
			if n == 0 {
				close(first)
			}
			f := strings.Fields(sc.Text())
			if len(f) != 3 {
				continue // the last line may be cut by the kill
			}
			rev, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				continue
			}
			if rev > acks[f[0]].rev {
				acks[f[0]] = acked{rev, f[2]}
			}
		}
		read <- sc.Err()
	}()
	select {
	case <-first:
	case err := <-read:
		cmd.Wait()
		t.Fatalf("child wrote nothing: %v", err)
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("child did not start writing")
	}
	time.Sleep(d)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-read
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want killed by SIGKILL", err)
	}
	return acks
}

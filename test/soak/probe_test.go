package soak_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// usage is what the server process holds at one moment.
type usage struct {
	rss, peakRSS int64 // bytes
	fds          int
	goroutines   int
}

func (u usage) String() string {
	return fmt.Sprintf("rss %d MiB (peak %d MiB), %d fds, %d goroutines", u.rss>>20, u.peakRSS>>20, u.fds, u.goroutines)
}

// measure reads the process's memory and descriptors from /proc and its
// goroutines from its own /metrics.
func measure(t *testing.T, c *client, pid int) usage {
	t.Helper()
	var u usage
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch k {
		case "VmRSS":
			u.rss = kib(t, v)
		case "VmHWM":
			u.peakRSS = kib(t, v)
		}
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	u.fds = len(ents)
	u.goroutines = int(c.metric(t, "go_goroutines"))
	return u
}

func kib(t *testing.T, v string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
	if err != nil {
		t.Fatalf("parsing %q: %v", v, err)
	}
	return n << 10
}

// settle waits until the server's descriptors and goroutines are back
// within slack of base, or fails after limit with what it holds.
func settle(t *testing.T, c *client, pid int, base usage, fdSlack, goSlack int, limit time.Duration) usage {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		u := measure(t, c, pid)
		if u.fds <= base.fds+fdSlack && u.goroutines <= base.goroutines+goSlack {
			return u
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v the server still holds %v; at the start it held %v", limit, u, base)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// background runs fn in n goroutines and returns a wait for them.
func background(n int, fn func(i int)) (wait func()) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { fn(i) })
	}
	return wg.Wait
}

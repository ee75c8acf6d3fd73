package storagetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// OpenFunc opens the durable store kept in dir; opening the same dir again
// must find everything the last store made durable.
type OpenFunc func(t *testing.T, dir string) storage.Interface

// RunDurable runs the restart tests for backends whose state survives
// Close and a new Open.
func RunDurable(t *testing.T, open OpenFunc) {
	t.Run("RestartKeepsState", func(t *testing.T) { testRestartKeepsState(t, open) })
	t.Run("RestartKeepsHistory", func(t *testing.T) { testRestartKeepsHistory(t, open) })
}

func testRestartKeepsState(t *testing.T, open OpenFunc) {
	dir := t.TempDir()
	s := open(t, dir)
	create(t, s, "/k/a", "a1")
	create(t, s, "/k/b", "b1")
	update(t, s, "/k/a", "a2")
	del(t, s, "/k/b")
	rev := revision(t, s)
	want := kvs(list(t, s, "", storage.ListOptions{}).Items)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, dir)
	defer s.Close()
	if got := revision(t, s); got != rev {
		t.Fatalf("revision after restart = %d, want %d", got, rev)
	}
	if got := kvs(list(t, s, "", storage.ListOptions{}).Items); !slices.Equal(got, want) {
		t.Fatalf("state after restart = %v, want %v", got, want)
	}
	if got := create(t, s, "/k/c", "c1"); got != rev+1 {
		t.Fatalf("first write after restart at %d, want %d", got, rev+1)
	}
}

func testRestartKeepsHistory(t *testing.T, open OpenFunc) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir)
	for i := range 20 {
		create(t, s, fmt.Sprintf("/h/%02d", i), "v")
	}
	compactAt := revision(t, s)
	for i := range 20 {
		update(t, s, fmt.Sprintf("/h/%02d", i), "w")
	}
	if err := s.Compact(ctx, compactAt); err != nil {
		t.Fatal(err)
	}
	page := list(t, s, "/h/", storage.ListOptions{Revision: compactAt + 5, Limit: 10})
	wantRest := kvs(list(t, s, "/h/", storage.ListOptions{Revision: compactAt + 5}).Items[10:])
	ch := watch(t, s, "/h/", compactAt)
	wantEvents := collect(t, ch, 20)
	s.Close()

	s = open(t, dir)
	defer s.Close()
	_, err := s.List(ctx, "/h/", storage.ListOptions{Revision: compactAt - 1})
	wantErr(t, "List below compaction after restart", err, storage.ErrCompacted)
	rest := list(t, s, "/h/", storage.ListOptions{Limit: 100, Continue: page.Continue})
	if got := kvs(rest.Items); !slices.Equal(got, wantRest) {
		t.Fatalf("continue after restart = %v, want %v", got, wantRest)
	}
	if got := collect(t, watch(t, s, "/h/", compactAt), 20); !slices.Equal(got, wantEvents) {
		t.Fatalf("watch replay after restart = %v, want %v", got, wantEvents)
	}
}

package storagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

func testListPrefix(t *testing.T, s storage.Interface) {
	for _, k := range []string{"/b/2", "/a/1", "/ab/1", "/b/1", "/a/2", "/a"} {
		create(t, s, k, "v")
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"/a/", []string{"/a/1", "/a/2"}},
		{"/a", []string{"/a", "/a/1", "/a/2", "/ab/1"}},
		{"/b/", []string{"/b/1", "/b/2"}},
		{"/c/", nil},
		{"", []string{"/a", "/a/1", "/a/2", "/ab/1", "/b/1", "/b/2"}},
	}
	for _, tt := range tests {
		res := list(t, s, tt.prefix, storage.ListOptions{})
		var got []string
		for _, kv := range res.Items {
			got = append(got, kv.Key)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("List(%q) = %v, want %v", tt.prefix, got, tt.want)
		}
		if res.Revision != revision(t, s) || res.Continue != "" {
			t.Errorf("List(%q) at revision %d with continue %q, want current revision and none", tt.prefix, res.Revision, res.Continue)
		}
	}
}

func testListPages(t *testing.T, s storage.Interface) {
	for i := range 10 {
		create(t, s, fmt.Sprintf("/p/%02d", i), fmt.Sprint(i))
	}
	create(t, s, "/q/0", "other")
	for _, limit := range []int64{1, 3, 5, 9, 10, 11} {
		t.Run(fmt.Sprint("limit", limit), func(t *testing.T) {
			full := list(t, s, "/p/", storage.ListOptions{})
			var got []storage.KeyValue
			opts := storage.ListOptions{Limit: limit}
			for page := 0; ; page++ {
				res := list(t, s, "/p/", opts)
				if int64(len(res.Items)) > limit {
					t.Fatalf("page of %d items, limit %d", len(res.Items), limit)
				}
				if res.Revision != full.Revision {
					t.Fatalf("page %d at revision %d, want %d", page, res.Revision, full.Revision)
				}
				got = append(got, res.Items...)
				if res.Continue == "" {
					break
				}
				if page == 0 {
					// Writes between pages must not show in later pages.
					update(t, s, "/p/09", "changed")
					create(t, s, "/p/10", "new")
					defer func() {
						del(t, s, "/p/10")
						update(t, s, "/p/09", "9")
					}()
				}
				opts = storage.ListOptions{Limit: limit, Continue: res.Continue}
			}
			if g, w := kvs(got), kvs(full.Items); !slices.Equal(g, w) {
				t.Fatalf("pages = %v, want %v", g, w)
			}
		})
	}
}

func testListAtRevision(t *testing.T, s storage.Interface) {
	r1 := create(t, s, "/k/a", "a1")
	r2 := create(t, s, "/k/b", "b1")
	r3 := update(t, s, "/k/a", "a2")
	r4 := del(t, s, "/k/b")
	r5 := create(t, s, "/k/c", "c1")
	r6 := create(t, s, "/k/b", "b2")
	tests := []struct {
		rev  int64
		want []string
	}{
		{1, nil},
		{r1, []string{"/k/a=a1@2"}},
		{r2, []string{"/k/a=a1@2", "/k/b=b1@3"}},
		{r3, []string{"/k/a=a2@4", "/k/b=b1@3"}},
		{r4, []string{"/k/a=a2@4"}},
		{r5, []string{"/k/a=a2@4", "/k/c=c1@6"}},
		{r6, []string{"/k/a=a2@4", "/k/b=b2@7", "/k/c=c1@6"}},
	}
	for _, tt := range tests {
		res := list(t, s, "/k/", storage.ListOptions{Revision: tt.rev})
		if got := kvs(res.Items); !slices.Equal(got, tt.want) || res.Revision != tt.rev {
			t.Errorf("List at %d = %v at %d, want %v", tt.rev, got, res.Revision, tt.want)
		}
		// Paging at an old revision walks the same items.
		var paged []storage.KeyValue
		opts := storage.ListOptions{Revision: tt.rev, Limit: 1}
		for {
			res := list(t, s, "/k/", opts)
			paged = append(paged, res.Items...)
			if res.Continue == "" {
				break
			}
			opts = storage.ListOptions{Limit: 1, Continue: res.Continue}
		}
		if got := kvs(paged); !slices.Equal(got, tt.want) {
			t.Errorf("paged List at %d = %v, want %v", tt.rev, got, tt.want)
		}
	}
}

func testListErrors(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	for i := range 4 {
		create(t, s, fmt.Sprintf("/e/%d", i), "v")
	}
	cur := revision(t, s)
	_, err := s.List(ctx, "/e/", storage.ListOptions{Revision: cur + 1})
	wantErr(t, "List at a future revision", err, storage.ErrFutureRevision)
	for _, token := range []string{"garbage", "e30", "eyJ2IjoieCJ9", "!!!"} {
		_, err = s.List(ctx, "/e/", storage.ListOptions{Continue: token})
		wantErr(t, "List with continue "+token, err, storage.ErrInvalidContinue)
	}
	page := list(t, s, "/e/", storage.ListOptions{Limit: 2})
	update(t, s, "/e/0", "w")
	if err := s.Compact(ctx, revision(t, s)); err != nil {
		t.Fatal(err)
	}
	_, err = s.List(ctx, "/e/", storage.ListOptions{Limit: 2, Continue: page.Continue})
	wantErr(t, "List with a continue token past compaction", err, storage.ErrCompacted)
	_, err = s.List(ctx, "/e/", storage.ListOptions{Revision: cur})
	var compacted *storage.CompactedError
	if !errors.As(err, &compacted) || compacted.Oldest != cur+1 || compacted.Requested != cur {
		t.Fatalf("List below compaction = %v, want CompactedError{Requested: %d, Oldest: %d}", err, cur, cur+1)
	}
}

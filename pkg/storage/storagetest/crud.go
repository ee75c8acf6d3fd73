package storagetest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

func testCreateGet(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	if got := revision(t, s); got != 1 {
		t.Fatalf("new store at revision %d, want 1", got)
	}
	if got := create(t, s, "/a/1", "one"); got != 2 {
		t.Fatalf("first Create at revision %d, want 2", got)
	}
	if got := create(t, s, "/a/2", "two"); got != 3 {
		t.Fatalf("second Create at revision %d, want 3", got)
	}
	kv, err := s.Get(ctx, "/a/1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kvs([]storage.KeyValue{kv}), []string{"/a/1=one@2"}; !slices.Equal(got, want) {
		t.Fatalf("Get = %v, want %v", got, want)
	}
	_, err = s.Create(ctx, "/a/1", []byte("again"))
	wantErr(t, "Create of an existing key", err, storage.ErrAlreadyExists)
	_, err = s.Get(ctx, "/a/3")
	wantErr(t, "Get of a missing key", err, storage.ErrNotFound)
	if got := revision(t, s); got != 3 {
		t.Fatalf("revision %d after two creates, want 3", got)
	}
}

func testUpdate(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	r1 := create(t, s, "/k", "v1")
	r2, err := s.Update(ctx, "/k", []byte("v2"), r1)
	if err != nil || r2 != r1+1 {
		t.Fatalf("Update with matching revision = %d, %v; want %d", r2, err, r1+1)
	}
	_, err = s.Update(ctx, "/k", []byte("stale"), r1)
	wantErr(t, "Update with a stale revision", err, storage.ErrConflict)
	var conflict *storage.ConflictError
	if !errors.As(err, &conflict) || conflict.Current != r2 || conflict.Expected != r1 {
		t.Fatalf("conflict error %#v, want Expected %d Current %d", err, r1, r2)
	}
	r3, err := s.Update(ctx, "/k", []byte("v3"), 0)
	if err != nil || r3 != r2+1 {
		t.Fatalf("unconditional Update = %d, %v; want %d", r3, err, r2+1)
	}
	_, err = s.Update(ctx, "/missing", []byte("x"), 0)
	wantErr(t, "Update of a missing key", err, storage.ErrNotFound)
	kv, _ := s.Get(ctx, "/k")
	if string(kv.Value) != "v3" || kv.Revision != r3 {
		t.Fatalf("Get after updates = %s@%d, want v3@%d", kv.Value, kv.Revision, r3)
	}
}

func testDelete(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	r1 := create(t, s, "/k", "v1")
	_, _, err := s.Delete(ctx, "/k", r1+10)
	wantErr(t, "Delete with a wrong revision", err, storage.ErrConflict)
	prev, rev, err := s.Delete(ctx, "/k", r1)
	if err != nil {
		t.Fatal(err)
	}
	if string(prev.Value) != "v1" || prev.Revision != r1 || prev.Key != "/k" || rev != r1+1 {
		t.Fatalf("Delete = %s=%s@%d at %d, want /k=v1@%d at %d", prev.Key, prev.Value, prev.Revision, rev, r1, r1+1)
	}
	_, err = s.Get(ctx, "/k")
	wantErr(t, "Get after Delete", err, storage.ErrNotFound)
	_, _, err = s.Delete(ctx, "/k", 0)
	wantErr(t, "second Delete", err, storage.ErrNotFound)
	r3 := create(t, s, "/k", "v2")
	kv, err := s.Get(ctx, "/k")
	if err != nil || string(kv.Value) != "v2" || kv.Revision != r3 {
		t.Fatalf("Get after re-create = %s@%d, %v; want v2@%d", kv.Value, kv.Revision, err, r3)
	}
}

func testFailedWritesKeepRevision(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	rev := create(t, s, "/k", "v")
	s.Create(ctx, "/k", []byte("dup"))
	s.Update(ctx, "/k", []byte("stale"), rev-1)
	s.Update(ctx, "/none", []byte("x"), 0)
	s.Delete(ctx, "/none", 0)
	s.Delete(ctx, "/k", rev+5)
	if got := revision(t, s); got != rev {
		t.Fatalf("revision %d after failed writes, want %d", got, rev)
	}
	if got := create(t, s, "/k2", "v"); got != rev+1 {
		t.Fatalf("next write at %d, want %d", got, rev+1)
	}
}

func testInvalidKeys(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	for _, key := range []string{"", "/a\x00b", "/bad\xffutf8", "/" + strings.Repeat("k", storage.MaxKeyLen)} {
		_, err := s.Create(ctx, key, []byte("v"))
		wantErr(t, "Create("+key+")", err, storage.ErrInvalidKey)
		_, err = s.Get(ctx, key)
		wantErr(t, "Get("+key+")", err, storage.ErrInvalidKey)
	}
	_, err := s.List(ctx, "/a\x00", storage.ListOptions{})
	wantErr(t, "List with a NUL prefix", err, storage.ErrInvalidKey)
	_, err = s.Watch(ctx, "/a\x00", 0)
	wantErr(t, "Watch with a NUL prefix", err, storage.ErrInvalidKey)
	if got := revision(t, s); got != 1 {
		t.Fatalf("invalid writes moved the revision to %d", got)
	}
}

// testValuesAreStable: a value read stays as it was read when the key is
// written again, as the API server's watch cache relies on; a store may
// keep the caller's bytes, which the caller then leaves alone.
func testValuesAreStable(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	rev := create(t, s, "/k", "original")
	kv, err := s.Get(ctx, "/k")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "/k", []byte("replaced, and longer"), rev); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Delete(ctx, "/k", 0); err != nil {
		t.Fatal(err)
	}
	if string(kv.Value) != "original" || kv.Revision != rev {
		t.Fatalf("a value read changed with later writes: %q at %d", kv.Value, kv.Revision)
	}
}

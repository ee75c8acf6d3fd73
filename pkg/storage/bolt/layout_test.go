package bolt

import (
	"bytes"
	"cmp"
	"context"
	"path/filepath"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

func FuzzVersionKey(f *testing.F) {
	f.Add("/registry/configmaps/default/a", int64(2), "/registry/configmaps/default/a/b", int64(1))
	f.Add("/a", int64(1<<40), "/a\x01", int64(0))
	f.Add("x", int64(255), "x", int64(256))
	f.Fuzz(func(t *testing.T, k1 string, r1 int64, k2 string, r2 int64) {
		if storage.ValidateKey(k1) != nil || storage.ValidateKey(k2) != nil || r1 < 0 || r2 < 0 {
			return
		}
		v1, v2 := versionKey(k1, r1), versionKey(k2, r2)
		key, rev, err := parseVersionKey(v1)
		if err != nil || key != k1 || rev != r1 {
			t.Fatalf("parse(versionKey(%q, %d)) = %q, %d, %v", k1, r1, key, rev, err)
		}
		// Byte order must be key order, then revision order: List and
		// compaction rely on it.
		want := cmp.Compare(k1, k2)
		if want == 0 {
			want = cmp.Compare(r1, r2)
		}
		if got := bytes.Compare(v1, v2); got != want {
			t.Fatalf("order of (%q,%d) vs (%q,%d) = %d, want %d", k1, r1, k2, r2, got, want)
		}
		// nextKeyStart(k1) lies after every version of k1 and before
		// every version of any greater key.
		next := nextKeyStart(k1)
		if bytes.Compare(v1, next) >= 0 || (k2 > k1 && bytes.Compare(v2, next) < 0) {
			t.Fatalf("nextKeyStart(%q) does not separate (%q,%d) from (%q,%d)", k1, k1, r1, k2, r2)
		}
	})
}

func FuzzParseVersionKey(f *testing.F) {
	f.Add(versionKey("/a/b", 7))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte("short"))
	f.Fuzz(func(t *testing.T, b []byte) {
		key, rev, err := parseVersionKey(b)
		if err != nil {
			return
		}
		if got := versionKey(key, rev); !bytes.Equal(got, b) {
			t.Fatalf("versionKey(parse(%q)) = %q", b, got)
		}
	})
}

func FuzzRecord(f *testing.F) {
	f.Add(uint8(1), int64(0), "/k", []byte("value"))
	f.Add(uint8(3), int64(99), "/registry/x", []byte(nil))
	f.Fuzz(func(t *testing.T, typ uint8, prev int64, key string, value []byte) {
		// Arbitrary bytes must decode or fail cleanly.
		decodeRecord(append([]byte{typ}, value...))
		decodeKeyOnly(append([]byte{typ}, value...))
		r := record{typ: storage.EventType(typ%3 + 1), prevRev: prev & (1<<62 - 1), key: key, value: value}
		got, err := decodeRecord(r.encode())
		if err != nil || got.typ != r.typ || got.prevRev != r.prevRev || got.key != r.key || !bytes.Equal(got.value, r.value) {
			t.Fatalf("decode(encode(%+v)) = %+v, %v", r, got, err)
		}
		if k, err := decodeKeyOnly(r.encode()); err != nil || string(k) != key {
			t.Fatalf("decodeKeyOnly = %q, %v; want %q", k, err, key)
		}
	})
}

// TestCompactionResumesAtOpen records a compaction without doing its
// deletions, as a crash right after the first step would leave it, and
// checks that Open finishes it.
func TestCompactionResumesAtOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Create(ctx, "/k", []byte("v0"))
	for i := range 10 {
		s.Update(ctx, "/k", []byte{byte('0' + i)}, 0)
	}
	rev, _ := s.Revision(ctx)
	s.db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(metaCompacted, revBytes(rev))
	})
	s.Close()

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.db.View(func(tx *bbolt.Tx) error {
		if n := tx.Bucket(bucketRev).Stats().KeyN; n != 1 {
			t.Errorf("%d records after resumed compaction, want 1", n)
		}
		if n := tx.Bucket(bucketHist).Stats().KeyN; n != 1 {
			t.Errorf("%d version keys after resumed compaction, want 1", n)
		}
		if done := bytesRev(tx.Bucket(bucketMeta).Get(metaCompactDone)); done != rev {
			t.Errorf("compaction done up to %d, want %d", done, rev)
		}
		return nil
	})
	if kv, err := s.Get(ctx, "/k"); err != nil || string(kv.Value) != "9" {
		t.Fatalf("Get = %q, %v; want 9", kv.Value, err)
	}
}

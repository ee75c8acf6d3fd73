package bolt

import (
	"encoding/binary"
	"errors"
	"strings"

	bbolt "go.etcd.io/bbolt"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// The database holds four buckets:
//
//	meta  fixed names -> 8-byte big-endian numbers (revision, compaction)
//	rev   chunkKey    -> record: the change made at that revision, split
//	                     into chunks. The only copy of every value;
//	                     appended in revision order.
//	key   key         -> revision of the key's live record (absent once deleted)
//	hist  versionKey  -> 1 for a value, 0 for a tombstone; one per record,
//	                     so a List at an older revision finds each key's
//	                     version with two seeks however long its history.
var (
	bucketMeta = []byte("meta")
	bucketRev  = []byte("rev")
	bucketKey  = []byte("key")
	bucketHist = []byte("hist")

	metaRevision    = []byte("revision")
	metaCompacted   = []byte("compacted")
	metaCompactDone = []byte("compactDone")
)

const (
	histValue     = 1
	histTombstone = 0
)

// Records are stored in chunks sized so that exactly eight fill a page.
// bbolt puts at least two entries on a page and spills larger pairs onto
// extra pages, so whole records slightly over half a page would leave
// nearly half of every page empty. With chunks, a page wastes at most the
// room of one chunk, whatever the value sizes, which keeps the file within
// twice the data it holds.
const (
	chunkKeyLen = 12 // revision, then chunk index
	// bbolt's page header and per-entry header are 16 bytes each.
	pageHeader, entryHeader = 16, 16
)

func chunkSizeFor(pageSize int) int { return (pageSize-pageHeader)/8 - entryHeader - chunkKeyLen }

func chunkKey(rev int64, i uint32) []byte {
	b := make([]byte, chunkKeyLen)
	binary.BigEndian.PutUint64(b, uint64(rev))
	binary.BigEndian.PutUint32(b[8:], i)
	return b
}

func chunkRev(k []byte) int64 {
	if len(k) != chunkKeyLen {
		return 0
	}
	return int64(binary.BigEndian.Uint64(k))
}

// putRecord stores enc, the encoded record at rev, in chunks. bbolt keeps
// the slices until commit, so enc must not change until then.
func putRecord(b *bbolt.Bucket, rev int64, enc []byte, chunkSize int) error {
	for i := uint32(0); len(enc) > 0; i++ {
		n := min(chunkSize, len(enc))
		if err := b.Put(chunkKey(rev, i), enc[:n]); err != nil {
			return err
		}
		enc = enc[n:]
	}
	return nil
}

// deleteRecord removes every chunk of the record at rev.
func deleteRecord(b *bbolt.Bucket, rev int64) error {
	c := b.Cursor()
	start := chunkKey(rev, 0)
	for k, _ := c.Seek(start); k != nil && chunkRev(k) == rev; k, _ = c.Seek(start) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// recordIter walks whole records in revision order.
type recordIter struct {
	c    *bbolt.Cursor
	k, v []byte
}

func seekRecords(b *bbolt.Bucket, from int64) *recordIter {
	c := b.Cursor()
	k, v := c.Seek(chunkKey(from, 0))
	return &recordIter{c: c, k: k, v: v}
}

// next returns the next record's revision and encoding; the encoding may
// be bbolt's memory, valid only in the transaction.
func (it *recordIter) next() (int64, []byte, bool) {
	if it.k == nil {
		return 0, nil, false
	}
	rev, data, joined := chunkRev(it.k), it.v, false
	for it.k, it.v = it.c.Next(); it.k != nil && chunkRev(it.k) == rev; it.k, it.v = it.c.Next() {
		if !joined {
			data, joined = append([]byte(nil), data...), true
		}
		data = append(data, it.v...)
	}
	return rev, data, true
}

func revBytes(rev int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(rev))
	return b
}

func bytesRev(b []byte) int64 {
	if len(b) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// versionKey encodes key and revision so that byte order is key order,
// then revision order. Keys hold no NUL byte, so the NUL separator sorts
// every version of a key before any longer key that extends it.
func versionKey(key string, rev int64) []byte {
	b := make([]byte, len(key)+9)
	copy(b, key)
	b[len(key)] = 0
	binary.BigEndian.PutUint64(b[len(key)+1:], uint64(rev))
	return b
}

var errBadVersionKey = errors.New("bolt: malformed version key")

// parseVersionKey is the inverse of versionKey.
func parseVersionKey(b []byte) (string, int64, error) {
	if len(b) < 10 || b[len(b)-9] != 0 {
		return "", 0, errBadVersionKey
	}
	key := string(b[:len(b)-9])
	if strings.IndexByte(key, 0) >= 0 {
		return "", 0, errBadVersionKey
	}
	return key, int64(binary.BigEndian.Uint64(b[len(b)-8:])), nil
}

// nextKeyStart is the smallest version key after every version of key.
func nextKeyStart(key string) []byte { return append([]byte(key), 1) }

// record is one change, as stored in the rev bucket:
//
//	type (1 byte) | uvarint prevRev | uvarint len(key) | key | value
//
// prevRev names the record this one replaced (0 for a create), which is
// where a delete's last value and a modification's previous value live.
type record struct {
	typ     storage.EventType
	prevRev int64
	key     string
	value   []byte
}

func (r record) encode() []byte {
	b := make([]byte, 0, 1+2*binary.MaxVarintLen64+len(r.key)+len(r.value))
	b = append(b, byte(r.typ))
	b = binary.AppendUvarint(b, uint64(r.prevRev))
	b = binary.AppendUvarint(b, uint64(len(r.key)))
	b = append(b, r.key...)
	return append(b, r.value...)
}

var errBadRecord = errors.New("bolt: malformed record")

// decodeRecord parses b. The value is copied: bolt's memory is valid only
// inside its transaction.
func decodeRecord(b []byte) (record, error) {
	if len(b) < 3 {
		return record{}, errBadRecord
	}
	r := record{typ: storage.EventType(b[0])}
	if r.typ < storage.Added || r.typ > storage.Deleted {
		return record{}, errBadRecord
	}
	b = b[1:]
	prev, n := binary.Uvarint(b)
	if n <= 0 || prev > 1<<62 {
		return record{}, errBadRecord
	}
	b = b[n:]
	klen, n := binary.Uvarint(b)
	if n <= 0 || klen > uint64(len(b)-n) {
		return record{}, errBadRecord
	}
	b = b[n:]
	r.prevRev = int64(prev)
	r.key = string(b[:klen])
	r.value = append([]byte{}, b[klen:]...)
	return r, nil
}

// decodeKeyOnly returns the key of the record in b without copying it.
func decodeKeyOnly(b []byte) ([]byte, error) {
	if len(b) < 3 {
		return nil, errBadRecord
	}
	b = b[1:]
	_, n := binary.Uvarint(b)
	if n <= 0 {
		return nil, errBadRecord
	}
	b = b[n:]
	klen, n := binary.Uvarint(b)
	if n <= 0 || klen > uint64(len(b)-n) {
		return nil, errBadRecord
	}
	return b[n : n+int(klen)], nil
}

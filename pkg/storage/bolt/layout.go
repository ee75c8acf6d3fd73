package bolt

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// The database holds four buckets:
//
//	meta  fixed names -> 8-byte big-endian numbers (revision, compaction)
//	rev   revision    -> record: the change made at that revision. The only
//	                     copy of every value; appended in revision order.
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

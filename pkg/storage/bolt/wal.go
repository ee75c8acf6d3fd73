package bolt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// The write-ahead log makes a commit durable with one fdatasync of a small
// append, where a synced bbolt commit costs two (its pages, then its meta
// page). Between checkpoints bbolt commits without syncing; the log holds
// every change since the last checkpoint, and the checkpoint holds what
// is needed to put the bbolt file back to a state known to be on disk.
//
// The log file starts with two header slots, written alternately so that
// a torn header write leaves the other intact, then the records:
//
//	slot 0 | slot 1 | record | record | ...
//
// A header is a checkpoint: its epoch, the revision the bbolt file held
// when it was synced, and, when restore is set, a copy of the file's two
// meta pages at that moment. A record is one committed batch:
//
//	length u32 | crc32c(epoch, payload) u32 | payload
//	payload: first revision u64, count u32, then count changes:
//	         type u8, uvarint key length, key, uvarint value length, value
//
// Each checkpoint starts a new epoch and writes records from the start of
// the record area again. Folding the epoch into the checksum ends replay
// at the first record left over from an older epoch.
const (
	walMagic   = "SPWAL001"
	walHdrBase = 4096 // fixed fields, padded to a page
	walMaxPage = 64 << 10
)

var (
	errWALCorrupt = errors.New("bolt: write-ahead log corrupt")
	castagnoli    = crc32.MakeTable(crc32.Castagnoli)
)

// walHeader is one checkpoint.
type walHeader struct {
	epoch    uint64
	rev      int64
	pageSize int
	// restore means the bbolt file may hold unsynced commits past this
	// checkpoint: reopening puts metas back first and then replays the
	// records. Without it the bbolt file is authoritative.
	restore bool
	metas   []byte // 2 pages, when restore is set
	// dbID identifies the bbolt file the metas belong to, so that they
	// are never written into another (a copy restored from a backup).
	dbID uint64
}

// wal is the log file. Only the writer goroutine uses it after Open.
type wal struct {
	f        *os.File
	pageSize int
	epoch    uint64
	off      int64 // where the next record goes
	buf      []byte
}

// A slot has room for the largest page size, so that either slot can be
// found without reading the other.
const walSlot = walHdrBase + 2*walMaxPage

func (w *wal) recordStart() int64 { return 2 * walSlot }

// encodeHeader lays out h in one slot.
func (w *wal) encodeHeader(h walHeader) []byte {
	b := make([]byte, walHdrBase+2*w.pageSize)
	copy(b, walMagic)
	binary.LittleEndian.PutUint64(b[8:], h.epoch)
	binary.LittleEndian.PutUint64(b[16:], uint64(h.rev))
	binary.LittleEndian.PutUint32(b[24:], uint32(h.pageSize))
	binary.LittleEndian.PutUint64(b[40:], h.dbID)
	if h.restore {
		b[28] = 1
		copy(b[walHdrBase:], h.metas)
	}
	binary.LittleEndian.PutUint32(b[32:], crc32.Checksum(b[36:], castagnoli)^crc32.Checksum(b[:32], castagnoli))
	return b
}

func decodeHeader(b []byte) (walHeader, bool) {
	if len(b) < walHdrBase || string(b[:8]) != walMagic {
		return walHeader{}, false
	}
	h := walHeader{
		epoch:    binary.LittleEndian.Uint64(b[8:]),
		rev:      int64(binary.LittleEndian.Uint64(b[16:])),
		pageSize: int(binary.LittleEndian.Uint32(b[24:])),
		restore:  b[28] == 1,
		dbID:     binary.LittleEndian.Uint64(b[40:]),
	}
	if h.pageSize <= 0 || h.pageSize > walMaxPage || len(b) != walHdrBase+2*h.pageSize {
		return walHeader{}, false
	}
	if binary.LittleEndian.Uint32(b[32:]) != crc32.Checksum(b[36:], castagnoli)^crc32.Checksum(b[:32], castagnoli) {
		return walHeader{}, false
	}
	if h.restore {
		h.metas = b[walHdrBase:]
	}
	return h, true
}

// readHeader returns the newer of the two valid header slots in f, and
// false when neither is valid (a new log, or one never checkpointed).
func readHeader(f *os.File) (walHeader, bool, error) {
	var best walHeader
	found := false
	for i := range int64(2) {
		var probe [walHdrBase]byte
		n, err := f.ReadAt(probe[:], i*walSlot)
		if n < len(probe) {
			if err == io.EOF || err == nil {
				continue
			}
			return best, false, err
		}
		ps := int(binary.LittleEndian.Uint32(probe[24:]))
		if string(probe[:8]) != walMagic || ps <= 0 || ps > walMaxPage {
			continue
		}
		slot := make([]byte, walHdrBase+2*ps)
		if _, err := f.ReadAt(slot, i*walSlot); err != nil && err != io.EOF {
			return best, false, err
		}
		if h, ok := decodeHeader(slot); ok && (!found || h.epoch > best.epoch) {
			best, found = h, true
		}
	}
	return best, found, nil
}

// writeHeader records a checkpoint in the slot the current one is not in,
// syncs it, and restarts the records after it.
func (w *wal) writeHeader(h walHeader) error {
	h.epoch, h.pageSize = w.epoch+1, w.pageSize
	if _, err := w.f.WriteAt(w.encodeHeader(h), int64(h.epoch%2)*walSlot); err != nil {
		return fmt.Errorf("bolt: write-ahead log header: %w", err)
	}
	if err := fdatasync(w.f); err != nil {
		return fmt.Errorf("bolt: write-ahead log sync: %w", err)
	}
	w.epoch, w.off = h.epoch, w.recordStart()
	return nil
}

// appendBatch writes the changes committed at first, first+1, ... as one
// record and syncs it.
func (w *wal) appendBatch(first int64, events []storage.Event) error {
	b := w.buf[:0]
	b = append(b, make([]byte, 8)...) // length and checksum, filled below
	b = binary.LittleEndian.AppendUint64(b, uint64(first))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(events)))
	for _, ev := range events {
		b = append(b, byte(ev.Type))
		b = binary.AppendUvarint(b, uint64(len(ev.Key)))
		b = append(b, ev.Key...)
		var v []byte
		if ev.Type != storage.Deleted {
			v = ev.Value
		}
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)-8))
	binary.LittleEndian.PutUint32(b[4:], w.checksum(b[8:]))
	w.buf = b
	if _, err := w.f.WriteAt(b, w.off); err != nil {
		return fmt.Errorf("bolt: write-ahead log append: %w", err)
	}
	if err := fdatasync(w.f); err != nil {
		return fmt.Errorf("bolt: write-ahead log sync: %w", err)
	}
	w.off += int64(len(b))
	return nil
}

// unappend makes the last record unreadable, for a batch bbolt then
// failed to commit: replay must not bring back what callers were told
// failed.
func (w *wal) unappend() error {
	n := int64(len(w.buf))
	w.off -= n
	if _, err := w.f.WriteAt(make([]byte, 8), w.off); err != nil {
		return err
	}
	return fdatasync(w.f)
}

func (w *wal) checksum(payload []byte) uint32 {
	var e [8]byte
	binary.LittleEndian.PutUint64(e[:], w.epoch)
	return crc32.Update(crc32.Checksum(e[:], castagnoli), castagnoli, payload)
}

// walBatch is one record read back.
type walBatch struct {
	first  int64
	events []storage.Event
}

// records reads the records of the current epoch in order, stopping at
// the first that is incomplete or from another epoch: the tail of a write
// cut short, or what an older epoch left behind.
func (w *wal) records() ([]walBatch, error) {
	data, err := io.ReadAll(io.NewSectionReader(w.f, w.recordStart(), 1<<62))
	if err != nil {
		return nil, fmt.Errorf("bolt: read write-ahead log: %w", err)
	}
	return w.parseRecords(data)
}

// parseRecords splits data, the record area, into batches.
func (w *wal) parseRecords(data []byte) ([]walBatch, error) {
	var out []walBatch
	for len(data) >= 8 {
		n := int(binary.LittleEndian.Uint32(data))
		if n < 12 || n > len(data)-8 || binary.LittleEndian.Uint32(data[4:]) != w.checksum(data[8:8+n]) {
			break
		}
		b, err := decodeBatch(data[8 : 8+n])
		if err != nil {
			return nil, err
		}
		if len(out) > 0 {
			prev := out[len(out)-1]
			if b.first != prev.first+int64(len(prev.events)) {
				return nil, fmt.Errorf("%w: revision %d follows %d", errWALCorrupt, b.first, prev.first+int64(len(prev.events))-1)
			}
		}
		out = append(out, b)
		data = data[8+n:]
	}
	return out, nil
}

func decodeBatch(p []byte) (walBatch, error) {
	if len(p) < 12 {
		return walBatch{}, errWALCorrupt
	}
	b := walBatch{first: int64(binary.LittleEndian.Uint64(p))}
	n := binary.LittleEndian.Uint32(p[8:])
	r := bytes.NewReader(p[12:])
	for range n {
		typ, err := r.ReadByte()
		if err != nil {
			return b, errWALCorrupt
		}
		key, err := readChunk(r)
		if err != nil {
			return b, err
		}
		value, err := readChunk(r)
		if err != nil {
			return b, err
		}
		b.events = append(b.events, storage.Event{Type: storage.EventType(typ), Key: string(key), Value: value})
	}
	return b, nil
}

func readChunk(r *bytes.Reader) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(r.Len()) {
		return nil, errWALCorrupt
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return b, err
}

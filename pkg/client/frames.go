package client

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/watch"
)

// maxFrameSize bounds one protobuf watch frame, as client-go's stream
// decoder does: a corrupt length must not make the client allocate
// gigabytes.
const maxFrameSize = 16 << 20

// rawEvent is one watch event before its object is decoded.
type rawEvent struct {
	typ    watch.EventType
	object []byte
	proto  bool
}

// eventReader reads the events of one watch stream. io.EOF is the
// server ending the stream between events; ErrDecode marks bytes that
// are not a stream; anything else is the connection failing.
type eventReader interface {
	next() (rawEvent, error)
}

// jsonEvents reads a JSON watch stream: one {"type","object"} value per
// event, usually newline-separated.
type jsonEvents struct{ d *json.Decoder }

func newJSONEvents(r io.Reader) *jsonEvents { return &jsonEvents{d: json.NewDecoder(r)} }

func (j *jsonEvents) next() (rawEvent, error) {
	var ev struct {
		Type   watch.EventType `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := j.d.Decode(&ev); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syntax) || errors.As(err, &typ) {
			return rawEvent{}, fmt.Errorf("%w: watch event: %v", ErrDecode, err)
		}
		return rawEvent{}, err
	}
	return rawEvent{typ: ev.Type, object: ev.Object}, nil
}

// protoEvents reads a protobuf watch stream: frames of a 4-byte
// big-endian length and a metav1.WatchEvent message whose object.raw is
// an enveloped protobuf object ("k8s\x00" and a runtime.Unknown).
type protoEvents struct {
	r   io.Reader
	buf []byte
}

func newProtoEvents(r io.Reader) *protoEvents { return &protoEvents{r: r} }

func (p *protoEvents) next() (rawEvent, error) {
	frame, err := readFrame(p.r, &p.buf)
	if err != nil {
		return rawEvent{}, err
	}
	// The event's object aliases p.buf: it is decoded (and copied out)
	// before the next frame is read.
	typ, obj, err := parseWatchEvent(frame)
	if err != nil {
		return rawEvent{}, fmt.Errorf("%w: protobuf watch event: %v", ErrDecode, err)
	}
	return rawEvent{typ: typ, object: obj, proto: true}, nil
}

// readFrame reads one length-prefixed frame into *buf, reusing it. A
// stream cut inside a frame is io.ErrUnexpectedEOF.
func readFrame(r io.Reader, buf *[]byte) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxFrameSize {
		return nil, fmt.Errorf("%w: watch frame of %d bytes exceeds the limit of %d", ErrDecode, n, maxFrameSize)
	}
	if uint32(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

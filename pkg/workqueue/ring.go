package workqueue

// minRing is the smallest ring allocated; it keeps small queues from
// resizing on every few items.
const minRing = 16

// ring is the FIFO ready set: a growable circular buffer of entries. Unlike
// a slice that is re-sliced from the front, it reuses its slots, so a queue
// at steady depth never allocates.
type ring[T comparable] struct {
	buf  []*entry[T] // len is zero or a power of two
	head int
	n    int
}

func (r *ring[T]) push(e *entry[T]) {
	if r.n == len(r.buf) {
		r.resize(max(2*len(r.buf), minRing))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = e
	r.n++
}

// pop removes the oldest entry; the ring must not be empty.
func (r *ring[T]) pop() *entry[T] {
	e := r.buf[r.head]
	r.buf[r.head] = nil // let the entry be collected once recycled away
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	// Give memory back after a burst, but only when far below capacity so
	// that a queue hovering around a size does not resize back and forth.
	if len(r.buf) > 4*minRing && r.n <= len(r.buf)/8 {
		r.resize(len(r.buf) / 2)
	}
	return e
}

func (r *ring[T]) resize(size int) {
	buf := make([]*entry[T], size)
	for i := 0; i < r.n; i++ {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}

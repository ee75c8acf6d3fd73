package cache

// kind is what a notification tells a handler.
type kind uint8

const (
	kindNone kind = iota
	kindAdd
	kindUpdate
	kindDelete
)

// notification is one call to make on a handler.
type notification[T Object] struct {
	kind kind
	// old is an update's previous state and a delete's last state; new is
	// an add's or update's new state.
	old, new stored[T]
	initial  bool // add: part of the initial list
	resync   bool // update: a periodic resync, old == new
}

// pending is what a handler has yet to hear about one key: at most a
// delete followed by an add or update. A key changed many times while the
// handler was busy is one entry, so a slow handler's backlog is bounded
// by twice the number of keys, not by the number of events.
type pending[T Object] struct {
	key        string
	del        notification[T] // kindDelete or kindNone; delivered first
	op         notification[T] // kindAdd, kindUpdate or kindNone
	prev, next *pending[T]
}

func (p *pending[T]) size() int {
	n := 0
	if p.del.kind != kindNone {
		n++
	}
	if p.op.kind != kindNone {
		n++
	}
	return n
}

// coalescer is a handler's buffer: a FIFO of keys, each with its merged
// notifications. A key keeps its place in line while it is merged into,
// so a busy key is not starved by quieter ones behind it. Not safe for
// concurrent use.
type coalescer[T Object] struct {
	byKey      map[string]*pending[T]
	head, tail *pending[T]
	count      int // notifications pending
	initial    int // initial-list adds not yet delivered (pending or in flight)
}

// push merges n into what is pending for key. The rules keep what the
// handler would conclude from the full sequence:
//
//	add(x) then update(x->y)    = add(y)
//	update(a->b) then update(b->c) = update(a->c): old is what the handler last saw
//	add(x) then delete(x)       = nothing: the handler never saw x
//	update(a->b) then delete(b) = delete(b)
//	delete(x) then add(y)       = delete(x), add(y): different objects, both told
//	resync with anything pending = nothing more: the pending one is newer
func (c *coalescer[T]) push(key string, n notification[T]) {
	if c.byKey == nil {
		c.byKey = map[string]*pending[T]{}
	}
	if n.kind == kindAdd && n.initial {
		c.initial++
	}
	p := c.byKey[key]
	if p == nil {
		p = &pending[T]{key: key}
		if n.kind == kindDelete {
			p.del = n
		} else {
			p.op = n
		}
		c.byKey[key] = p
		c.link(p)
		c.count++
		return
	}
	before := p.size()
	switch n.kind {
	case kindAdd:
		if p.op.kind == kindNone {
			p.op = n
			break
		}
		// An add over a pending add or update cannot come from a store,
		// which adds only absent keys; keep the newest state.
		if n.initial {
			c.initial--
		}
		p.op.new = n.new
	case kindUpdate:
		switch {
		case n.resync:
		case p.op.kind == kindNone:
			// An update after a pending delete: the handler was told
			// the key is gone, so this is an add to it.
			p.op = notification[T]{kind: kindAdd, new: n.new}
		default:
			p.op.new = n.new
		}
	case kindDelete:
		switch p.op.kind {
		case kindAdd:
			if p.op.initial {
				c.initial--
			}
			p.op = notification[T]{}
		case kindUpdate:
			p.op = notification[T]{}
			p.del = n
		default:
			p.del = n
		}
	}
	c.count += p.size() - before
	if p.size() == 0 {
		c.unlink(p)
		delete(c.byKey, key)
	}
}

// pop removes and returns the oldest key's notifications.
func (c *coalescer[T]) pop() (pending[T], bool) {
	p := c.head
	if p == nil {
		return pending[T]{}, false
	}
	c.unlink(p)
	delete(c.byKey, p.key)
	c.count -= p.size()
	out := *p
	out.prev, out.next = nil, nil
	return out, true
}

// clear drops everything pending.
func (c *coalescer[T]) clear() {
	*c = coalescer[T]{}
}

func (c *coalescer[T]) link(p *pending[T]) {
	p.prev = c.tail
	if c.tail != nil {
		c.tail.next = p
	} else {
		c.head = p
	}
	c.tail = p
}

func (c *coalescer[T]) unlink(p *pending[T]) {
	if p.prev != nil {
		p.prev.next = p.next
	} else {
		c.head = p.next
	}
	if p.next != nil {
		p.next.prev = p.prev
	} else {
		c.tail = p.prev
	}
	p.prev, p.next = nil, nil
}

package events

import "container/list"

// lru is a map bounded to a number of entries, forgetting the least
// recently used first. It is not safe for concurrent use.
type lru[K comparable, V any] struct {
	max   int
	order *list.List // of *lruEntry[K, V], most recent at the front
	items map[K]*list.Element
}

type lruEntry[K comparable, V any] struct {
	key   K
	value V
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, order: list.New(), items: make(map[K]*list.Element)}
}

// get returns the value under k and marks it as just used.
func (c *lru[K, V]) get(k K) (V, bool) {
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry[K, V]).value, true
}

// put stores v under k, evicting the least recently used entry when full.
func (c *lru[K, V]) put(k K, v V) {
	if e, ok := c.items[k]; ok {
		e.Value.(*lruEntry[K, V]).value = v
		c.order.MoveToFront(e)
		return
	}
	if c.order.Len() >= c.max {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*lruEntry[K, V]).key)
	}
	c.items[k] = c.order.PushFront(&lruEntry[K, V]{key: k, value: v})
}

func (c *lru[K, V]) len() int { return c.order.Len() }

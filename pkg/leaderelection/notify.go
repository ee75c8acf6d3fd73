package leaderelection

import "sync"

// notifier calls OnNewLeader on its own goroutine, in order, keeping
// only the latest identity while the callback is busy: the elector must
// never wait for user code between two renewals.
type notifier struct {
	fn   func(string)
	mu   sync.Mutex
	next string
	has  bool
	stop bool
	wake chan struct{}
	done chan struct{}
}

func startNotifier(fn func(string)) *notifier {
	n := &notifier{fn: fn, wake: make(chan struct{}, 1), done: make(chan struct{})}
	if fn == nil {
		close(n.done)
		return n
	}
	go n.loop()
	return n
}

func (n *notifier) send(identity string) {
	if n.fn == nil {
		return
	}
	n.mu.Lock()
	n.next, n.has = identity, true
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

func (n *notifier) loop() {
	defer close(n.done)
	for range n.wake {
		for {
			n.mu.Lock()
			id, has, stop := n.next, n.has, n.stop
			n.has = false
			n.mu.Unlock()
			if has {
				n.fn(id)
				continue
			}
			if stop {
				return
			}
			break
		}
	}
}

// close delivers what is pending, then waits for the callback to return.
func (n *notifier) close() {
	if n.fn == nil {
		return
	}
	n.mu.Lock()
	n.stop = true
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
	<-n.done
}

package app

import "sync"

// Broker fans events out to subscribers (the server-sent event streams of `serve`). A
// slow subscriber loses events rather than holding up the scan: each has a small buffer
// and a send that would block is dropped (the page reloads the catalog on the next
// catalog:updated anyway).
type Broker struct {
	mu   sync.Mutex
	subs map[chan Event]struct{}
}

// Event is one emitted event.
type Event struct {
	Name string
	Data any
}

// NewBroker makes an empty broker.
func NewBroker() *Broker { return &Broker{subs: map[chan Event]struct{}{}} }

// Emit sends the event to every subscriber without blocking.
func (b *Broker) Emit(name string, data any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- Event{name, data}:
		default:
		}
	}
}

// Subscribe returns a channel of events and the function that ends the subscription.
func (b *Broker) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, 64)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		delete(b.subs, ch)
		b.mu.Unlock()
	}
}

package clientask

import (
	"context"
	"sync"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/store"
)

// Open makes an Asker that keeps its answers in the database of pbHome. When the
// database cannot be opened the Asker asks every package every time, and err says why.
// close closes the database (it may be called either way).
func Open(ctx context.Context, pbHome string) (a *Asker, close func(), err error) {
	st, _, err := store.Open(ctx, pbHome, store.PartClientAnswers)
	if err != nil {
		return &Asker{}, func() {}, err
	}
	return &Asker{Store: st}, func() { _ = st.Close() }, nil
}

// Hooks hear what an asking of Background does, from its goroutine, one call at a time.
// Each may be nil.
type Hooks struct {
	Start    func(Client)                  // before a client is asked
	Progress func(Progress)                // after each package
	Answered func(Client, []Result, error) // a client's answers (its Ask's error)
	Done     func()                        // the asking is over (not when it was stopped)
}

// Background asks the installed clients about one scan at a time, as the desktop app
// and `watch` do after every scan: asking about a newer scan stops the asking about an
// older one, which ends at its next package and calls no hook once it has noticed (a
// caller that keeps state from the hooks tells the askings apart). Its methods are safe
// for concurrent use.
type Background struct {
	PlugboardHome string

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// Ask stops the asking under way and asks each client of clients about cat, in the
// background, telling h.
func (b *Background) Ask(ctx context.Context, clients []Client, cat *catalog.Catalog, h Hooks) {
	b.mu.Lock()
	if b.cancel != nil {
		b.cancel()
	}
	prev := b.done
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	b.cancel, b.done = cancel, done
	home := b.PlugboardHome
	b.mu.Unlock()
	go func() {
		defer close(done)
		defer cancel()
		if prev != nil {
			<-prev // one asking at a time
		}
		if len(clients) > 0 {
			a, closeStore, _ := Open(ctx, home) // without the database, every package is asked
			defer closeStore()
			for _, c := range clients {
				if h.Start != nil {
					h.Start(c)
				}
				res, err := a.AskAll(ctx, c, cat, func(p Progress) {
					if h.Progress != nil && ctx.Err() == nil {
						h.Progress(p)
					}
				})
				if ctx.Err() != nil {
					return // a newer scan is being asked about
				}
				if h.Answered != nil {
					h.Answered(c, res, err)
				}
			}
		}
		if h.Done != nil && ctx.Err() == nil {
			h.Done()
		}
	}()
}

// Stop stops the asking under way and waits for it to end.
func (b *Background) Stop() {
	b.mu.Lock()
	cancel, done := b.cancel, b.done
	b.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

package app

import (
	"context"
	"sync"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clientask"
	"github.com/plugboard/plugboard/backend/installed"
	"github.com/plugboard/plugboard/backend/store"
)

// Events of the clients installed here.
const (
	// EventClientsProgress carries a clientask.Progress while an installed client is asked
	// what it loads, after each package.
	EventClientsProgress = "clients:progress"
	// EventClientsAnswered says the asking after a scan is over: read ClientAnswers again.
	EventClientsAnswered = "clients:answered"
)

// ClientsState is what the page shows of the agent clients on this machine: which are
// installed (and so what each verdict is judged against), and what the installed ones
// said they load from each package of the last scan, beside the model's verdict.
type ClientsState struct {
	Clients []installed.Client `json:"clients"`
	// Asking is how far the asking about the last scan has come; nil when none runs.
	Asking *clientask.Progress `json:"asking,omitempty"`
	// Answers are the installed clients' answers about the last scan's packages, each with
	// its disagreements with the model: set when a client's asking ends.
	Answers []clientask.Result `json:"answers"`
	// Seq is the scan the answers are about (catalog.Catalog.Seq).
	Seq int64 `json:"seq"`
	// Error says why a client could not be asked at all (the database, an unknown client).
	Error string `json:"error,omitempty"`
}

// clientsState is the Service's part behind ClientsState.
type clientsState struct {
	mu     sync.Mutex
	state  ClientsState
	cancel context.CancelFunc // the asking under way
	done   chan struct{}      // closed when it ends
}

// findClients looks for the installed clients (cached: an unchanged install costs a few
// stats) with the app's PATH and home.
func (s *Service) findClients() []installed.Client {
	return installed.Find(context.Background(), []string{"PATH=" + s.getenv("PATH"), "HOME=" + s.home})
}

// catalogOptions are the options of a scan of workspace ws, with the clients installed
// now.
func (s *Service) catalogOptions(ws string) catalog.Options {
	return catalog.Options{Home: s.home, PlugboardHome: s.pbHome, Workspace: ws, Installed: clientask.Versions(s.findClients())}
}

// ClientAnswers is what the page shows of the installed clients (ClientsState).
func (s *Service) ClientAnswers() (ClientsState, error) {
	s.clients.mu.Lock()
	st := s.clients.state
	st.Answers = append([]clientask.Result{}, st.Answers...)
	if st.Asking != nil {
		p := *st.Asking
		st.Asking = &p
	}
	s.clients.mu.Unlock()
	if st.Clients == nil {
		st.Clients = s.findClients() // before the first scan's asking
	}
	return st, nil
}

// askClients asks the installed clients about c's packages in the background, after an
// earlier asking (about an earlier scan) is stopped: answers from the store come at
// once, the others as each client run ends. The page hears clients:progress and, at the
// end, clients:answered.
func (s *Service) askClients(c *catalog.Catalog) {
	found := s.findClients() // outside the lock: a first look may run a --version
	s.clients.mu.Lock()
	if s.clients.cancel != nil {
		s.clients.cancel()
	}
	prev := s.clients.done
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.clients.cancel, s.clients.done = cancel, done
	s.clients.state = ClientsState{Clients: found, Answers: []clientask.Result{}, Seq: c.Seq}
	s.clients.mu.Unlock()
	go func() {
		defer close(done)
		defer cancel()
		if prev != nil {
			<-prev // one asking at a time: the stopped one ends at its next package
		}
		askable := clientask.Askable(found)
		if len(askable) == 0 {
			s.emit(EventClientsAnswered, map[string]any{"seq": c.Seq})
			return
		}
		st, _, err := store.Open(ctx, s.pbHome, store.PartClientAnswers)
		var a clientask.Asker
		if err == nil {
			defer st.Close()
			a.Store = st
		}
		for _, cl := range askable {
			res, err := a.Ask(ctx, cl, c, func(p clientask.Progress) {
				s.clients.mu.Lock()
				if s.clients.done == done {
					s.clients.state.Asking = &p
				}
				s.clients.mu.Unlock()
				s.emit(EventClientsProgress, p)
			})
			if ctx.Err() != nil {
				return // a newer scan is being asked about
			}
			s.clients.mu.Lock()
			if s.clients.done == done {
				s.clients.state.Answers = append(s.clients.state.Answers, res...)
				if err != nil {
					s.clients.state.Error = err.Error()
				}
			}
			s.clients.mu.Unlock()
		}
		s.clients.mu.Lock()
		if s.clients.done == done {
			s.clients.state.Asking = nil
		}
		s.clients.mu.Unlock()
		s.emit(EventClientsAnswered, map[string]any{"seq": c.Seq})
	}()
}

// stopAsking stops the asking under way and waits for it to end (Close).
func (s *Service) stopAsking() {
	s.clients.mu.Lock()
	cancel, done := s.clients.cancel, s.clients.done
	s.clients.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

package app

import (
	"context"
	"sync"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clientask"
	"github.com/plugboard/plugboard/backend/installed"
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
	bg    clientask.Background
	mu    sync.Mutex
	state ClientsState
	gen   int // the asking the state is about; an older one's hooks change nothing
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
	s.clients.gen++
	gen := s.clients.gen
	s.clients.state = ClientsState{Clients: found, Answers: []clientask.Result{}, Seq: c.Seq}
	s.clients.mu.Unlock()
	// update changes the state when it is still this asking's.
	update := func(f func(st *ClientsState)) {
		s.clients.mu.Lock()
		defer s.clients.mu.Unlock()
		if s.clients.gen == gen {
			f(&s.clients.state)
		}
	}
	progress := func(p clientask.Progress) {
		update(func(st *ClientsState) { st.Asking = &p })
		s.emit(EventClientsProgress, p)
	}
	s.clients.bg.Ask(context.Background(), clientask.Askable(found), c, clientask.Hooks{
		// the asking is shown at once, before the first package's answer
		Start: func(cl clientask.Client) {
			progress(clientask.Progress{Client: cl.Name, Version: cl.Version, Total: len(c.Plugins)})
		},
		Progress: progress,
		Answered: func(_ clientask.Client, res []clientask.Result, err error) {
			update(func(st *ClientsState) {
				st.Answers = append(st.Answers, res...)
				if err != nil {
					st.Error = err.Error()
				}
			})
		},
		Done: func() {
			update(func(st *ClientsState) { st.Asking = nil })
			s.emit(EventClientsAnswered, map[string]any{"seq": c.Seq})
		},
	})
}

// stopAsking stops the asking under way and waits for it to end (Close).
func (s *Service) stopAsking() { s.clients.bg.Stop() }

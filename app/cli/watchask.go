package cli

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clientask"
	"github.com/plugboard/plugboard/backend/installed"
)

// lockedWriter lets the reload loop and the background asking print whole lines to one
// writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// watchAsker asks the installed clients about each new scan of `watch` in the
// background, as the desktop app does, and prints how it went: a line when it starts,
// one at the end with the counts, and one per package where a client and the model
// disagree (in JSON, {"asking": Progress} objects as it goes, at most ten a scan, and
// {"answers": …} at the end).
type watchAsker struct {
	w    io.Writer
	json bool
	find func() []installed.Client // the clients installed now (a client upgraded while watching is asked as it is)
	bg   clientask.Background
}

func newWatchAsker(w io.Writer, asJSON bool, pbHome string, find func() []installed.Client) *watchAsker {
	return &watchAsker{w: w, json: asJSON, find: find, bg: clientask.Background{PlugboardHome: pbHome}}
}

// ask stops the asking about an earlier scan and starts asking about c.
func (a *watchAsker) ask(ctx context.Context, c *catalog.Catalog) {
	askable := clientask.Askable(a.find())
	if len(askable) == 0 {
		return
	}
	step := max(len(c.Plugins)/10, 1)
	a.bg.Ask(ctx, askable, c, clientask.Hooks{
		Start: func(cl clientask.Client) {
			a.asking(clientask.Progress{Client: cl.Name, Version: cl.Version, Total: len(c.Plugins)})
		},
		Progress: func(p clientask.Progress) {
			if a.json && (p.Done%step == 0 || p.Done == p.Total) {
				a.asking(p)
			}
		},
		Answered: func(cl clientask.Client, res []clientask.Result, err error) {
			if err != nil {
				fmt.Fprintf(a.w, "plugboard watch: %v\n", err)
				return
			}
			a.answered(cl, res)
		},
	})
}

// stop stops the asking under way and waits for it to end (watch ends).
func (a *watchAsker) stop() { a.bg.Stop() }

func (a *watchAsker) asking(p clientask.Progress) {
	if a.json {
		writeCompactJSON(a.w, map[string]any{"asking": p})
	} else if p.Done == 0 {
		fmt.Fprintf(a.w, "asking %s %s what it loads from %s…\n", p.Client, p.Version, plural(p.Total, "package"))
	}
}

func (a *watchAsker) answered(cl clientask.Client, res []clientask.Result) {
	differ, errs := 0, 0
	var shown []clientask.Result
	for _, r := range res {
		switch {
		case r.Error != "":
			errs++
			shown = append(shown, r)
		case len(r.Differs) > 0:
			differ++
			shown = append(shown, r)
		}
	}
	if a.json {
		writeCompactJSON(a.w, map[string]any{"answers": map[string]any{"client": cl.Name, "version": cl.Version,
			"packages": len(res), "differ": differ, "errors": errs, "results": nonNilResults(shown)}})
		return
	}
	fmt.Fprintf(a.w, "%s %s: %s, %d agree with the model, %d differ, %d could not be asked\n",
		cl.Name, cl.Version, clientask.Tally(res), len(res)-differ-errs, differ, errs)
	for _, r := range shown {
		if r.Error != "" {
			fmt.Fprintf(a.w, "  ERROR %s: %s\n", r.Subject(), r.Error)
			continue
		}
		for _, d := range r.Differs {
			fmt.Fprintf(a.w, "  DIFFERS %s: %s\n", r.Subject(), d)
		}
	}
}

func nonNilResults(l []clientask.Result) []clientask.Result {
	if l == nil {
		return []clientask.Result{}
	}
	return l
}

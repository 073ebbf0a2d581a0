package app

import (
	"context"
	"errors"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/store"
)

// More error codes, for the assignment editor.
const (
	CodeRefused  = "refused"    // a rule refused the change (Names say which)
	CodeNeedAck  = "ack-needed" // MCP servers need an acknowledgment (Servers lists them)
	CodeReadOnly = "read-only"
)

// TargetsState is every assignment target with the issues found reading them.
type TargetsState struct {
	Targets []assign.Target `json:"targets"`
	Issues  issue.List      `json:"issues"`
}

// SaveResult is a saved assignment and its history entry.
type SaveResult struct {
	Outcome  assign.Outcome `json:"outcome"`
	History  int64          `json:"history"`
	Warnings []string       `json:"warnings"`
	// Files are the files a revert of an agent or template operation put back (then
	// Outcome holds only the target's id); absent for a save of pluginDirs.
	Files []assign.FileWritten `json:"files,omitempty"`
}

// Targets lists agents, template slots, shell bindings and __active__ slots over the
// last catalog scan.
func (s *Service) Targets() (TargetsState, error) {
	c, err := s.Catalog()
	if err != nil {
		return TargetsState{}, err
	}
	ts, issues := assign.Targets(s.pbHome, c)
	if ts == nil {
		ts = []assign.Target{}
	}
	return TargetsState{Targets: ts, Issues: issues.NonNil()}, nil
}

// Assign saves a change to one target when it still has hash; ack acknowledges the MCP
// servers the change brings in. The save is recorded in the history.
func (s *Service) Assign(target string, change assign.Change, hash string, ack bool) (SaveResult, error) {
	if hash == "" {
		// The page saves what it showed: a call that lost the hash (a stale tab, a bug)
		// must not save over the file unguarded. The command line's assign may.
		return SaveResult{}, &Error{Code: CodeInvalid, Message: "the target's hash is missing: reload the target (Targets) and save again with the hash it gives"}
	}
	// A page call carries no context (neither the window's bindings nor the HTTP door
	// pass one), so each save gets its own.
	return s.save(context.Background(), assign.Request{Target: target, Change: change, ExpectHash: hash, Ack: ack})
}

// SetLaunchAs records the choice to launch plugin id, which the specification rejects,
// as client loads it ("claude"), or clears it (""); the history records it as target
// launch-as:<id>. It rescans and returns the catalog.
func (s *Service) SetLaunchAs(id, client string) (*catalog.Catalog, error) {
	c, err := s.Catalog()
	if err != nil {
		return nil, err
	}
	_, _, err = assign.SetLaunchAs(context.Background(), s.pbHome, c, id, client, s.actor) // a page call carries no context
	var rule *assign.RuleError
	switch {
	case errors.As(err, &rule):
		return nil, &Error{Code: CodeRefused, Message: rule.Reason, Names: rule.Names}
	case err != nil:
		return nil, &Error{Code: CodeInvalid, Message: err.Error()}
	}
	return s.Rescan()
}

// History lists history entries, newest first; target "" lists all.
func (s *Service) History(target string) ([]store.HistoryEntry, error) {
	ctx := context.Background() // a page call carries no context
	st, _, err := store.Open(ctx, s.pbHome, store.PartHistory)
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: err.Error()}
	}
	defer st.Close()
	entries, err := st.History(ctx, target, 200)
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: err.Error()}
	}
	return entries, nil
}

// Revert undoes one history entry, as a guarded save of its own.
func (s *Service) Revert(id int64, ack bool) (SaveResult, error) {
	return s.save(context.Background(), assign.Request{RevertOf: id, Ack: ack})
}

// save runs one save and its history entry (assign.SaveAndRecord, within ctx) and maps a
// failure to the page's error codes.
func (s *Service) save(ctx context.Context, r assign.Request) (SaveResult, error) {
	c, err := s.Catalog()
	if err != nil {
		return SaveResult{}, err
	}
	r.Actor = s.actor
	saved, err := assign.SaveAndRecord(ctx, s.pbHome, c, r)
	var se *assign.SaveError
	switch {
	case errors.As(err, &se):
		return SaveResult{}, pageError(se)
	case err != nil:
		return SaveResult{}, &Error{Code: CodeInvalid, Message: err.Error()}
	}
	return SaveResult{Outcome: saved.Outcome, History: saved.History, Warnings: saved.Warnings, Files: saved.Files}, nil
}

// pageError is a failed save as the page shows it.
func pageError(se *assign.SaveError) *Error {
	switch se.Kind {
	case assign.FailStale:
		return &Error{Code: CodeStale, Message: se.Target + " changed on disk since it was loaded; nothing was saved. Reset to see it as it is now.", Current: se.Fresh}
	case assign.FailRefused:
		return &Error{Code: CodeRefused, Message: se.Rule.Reason, Names: se.Rule.Names, Collisions: se.Rule.Collisions}
	case assign.FailAckNeeded:
		return &Error{Code: CodeNeedAck, Message: "these MCP servers run local code or send data over the network; acknowledge them to save", Servers: se.Servers}
	case assign.FailReadOnly:
		return &Error{Code: CodeReadOnly, Message: se.Error()}
	case assign.FailNotFound:
		return &Error{Code: CodeNotFound, Message: se.Error()}
	}
	return &Error{Code: CodeInvalid, Message: se.Error()}
}

// FilesResult is what an agent or template operation wrote (assign.FilesSaved) and the
// targets as they are after it, so the page shows the new list without a second call.
type FilesResult struct {
	Saved   assign.FilesSaved `json:"saved"`
	Targets TargetsState      `json:"targets"`
}

// NewAgent makes agent name ($PLUGBOARD_HOME/agents/NAME.json) launching backend ("":
// Claude Code), starting with agent from's plugin set ("": none).
func (s *Service) NewAgent(name, backend, from string) (FilesResult, error) {
	return s.files(func(c *catalog.Catalog) (assign.FilesSaved, error) {
		return assign.NewAgent(context.Background(), s.pbHome, c, name, backend, from, s.actor)
	})
}

// CopyAgent makes agent name as a copy of agent from.
func (s *Service) CopyAgent(from, name string) (FilesResult, error) {
	return s.files(func(c *catalog.Catalog) (assign.FilesSaved, error) {
		return assign.CopyAgent(context.Background(), s.pbHome, c, from, name, s.actor)
	})
}

// RenameAgent renames agent from to name; the slots and shell bindings that run it and
// its acknowledgments follow.
func (s *Service) RenameAgent(from, name string) (FilesResult, error) {
	return s.files(func(c *catalog.Catalog) (assign.FilesSaved, error) {
		return assign.RenameAgent(context.Background(), s.pbHome, c, from, name, s.actor)
	})
}

// RemoveAgent removes agent name's file (revertible from the history).
func (s *Service) RemoveAgent(name string) (FilesResult, error) {
	return s.files(func(c *catalog.Catalog) (assign.FilesSaved, error) {
		return assign.RemoveAgent(context.Background(), s.pbHome, c, name, s.actor)
	})
}

// AddSlot adds a slot running agent to template, making the template when there is none.
func (s *Service) AddSlot(template, agent string) (FilesResult, error) {
	return s.files(func(c *catalog.Catalog) (assign.FilesSaved, error) {
		return assign.AddSlot(context.Background(), s.pbHome, c, template, agent, s.actor)
	})
}

// RemoveSlot removes template slot id from its template.
func (s *Service) RemoveSlot(id string) (FilesResult, error) {
	return s.files(func(c *catalog.Catalog) (assign.FilesSaved, error) {
		return assign.RemoveSlot(context.Background(), s.pbHome, c, id, s.actor)
	})
}

// files runs one agent or template operation over the last catalog and maps its failure
// to the page's codes: refused (with the rule's code in Names' place), stale, read-only.
func (s *Service) files(op func(*catalog.Catalog) (assign.FilesSaved, error)) (FilesResult, error) {
	c, err := s.Catalog()
	if err != nil {
		return FilesResult{}, err
	}
	saved, err := op(c)
	var rule *assign.RuleError
	switch {
	case errors.As(err, &rule):
		return FilesResult{}, &Error{Code: CodeRefused, Message: rule.Reason, Names: rule.Names}
	case errors.Is(err, assign.ErrStale):
		return FilesResult{}, &Error{Code: CodeStale, Message: "an agent or template file changed on disk meanwhile; nothing was written. Look again and retry."}
	case errors.Is(err, assign.ErrReadOnly):
		return FilesResult{}, &Error{Code: CodeReadOnly, Message: err.Error()}
	case err != nil:
		return FilesResult{}, &Error{Code: CodeIO, Message: err.Error()}
	}
	ts, err := s.Targets()
	if err != nil {
		return FilesResult{}, err
	}
	return FilesResult{Saved: saved, Targets: ts}, nil
}

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
	c, err := s.Catalog()
	if err != nil {
		return SaveResult{}, err
	}
	out, err := assign.Apply(s.pbHome, c, target, change, hash, ack)
	return s.recorded(target, out, 0, err)
}

// SetLaunchAs records the choice to launch plugin id, which the specification rejects,
// as client loads it ("claude"), or clears it (""); the history records it as target
// launch-as:<id>. It rescans and returns the catalog.
func (s *Service) SetLaunchAs(id, client string) (*catalog.Catalog, error) {
	c, err := s.Catalog()
	if err != nil {
		return nil, err
	}
	_, _, err = assign.SetLaunchAs(context.Background(), s.pbHome, c, id, client, s.actor)
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
	st, _, err := store.Open(context.Background(), s.pbHome)
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: err.Error()}
	}
	defer st.Close()
	entries, err := st.History(context.Background(), target, 200)
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: err.Error()}
	}
	return entries, nil
}

// Revert undoes one history entry, as a guarded save of its own.
func (s *Service) Revert(id int64, ack bool) (SaveResult, error) {
	c, err := s.Catalog()
	if err != nil {
		return SaveResult{}, err
	}
	out, e, err := assign.Revert(context.Background(), s.pbHome, c, id, ack)
	if errors.Is(err, store.ErrNotFound) {
		return SaveResult{}, &Error{Code: CodeNotFound, Message: err.Error()}
	}
	return s.recorded(e.Target, out, id, err)
}

// recorded maps a save's error for the page, or records the save.
func (s *Service) recorded(target string, out assign.Outcome, revertOf int64, err error) (SaveResult, error) {
	var stale *assign.StaleError
	var rule *assign.RuleError
	var need *assign.AckError
	switch {
	case errors.As(err, &stale):
		return SaveResult{}, &Error{Code: CodeStale, Message: target + " changed on disk since it was loaded; nothing was saved. Reset to see it as it is now.", Current: stale.Fresh}
	case errors.As(err, &rule):
		return SaveResult{}, &Error{Code: CodeRefused, Message: rule.Reason, Names: rule.Names, Collisions: rule.Collisions}
	case errors.As(err, &need):
		return SaveResult{}, &Error{Code: CodeNeedAck, Message: "these MCP servers run local code or send data over the network; acknowledge them to save", Servers: need.Servers}
	case errors.Is(err, assign.ErrReadOnly):
		return SaveResult{}, &Error{Code: CodeReadOnly, Message: err.Error()}
	case errors.Is(err, assign.ErrNotFound):
		return SaveResult{}, &Error{Code: CodeNotFound, Message: err.Error()}
	case err != nil:
		return SaveResult{}, &Error{Code: CodeInvalid, Message: err.Error()}
	}
	res := SaveResult{Outcome: out, Warnings: []string{}}
	if out.Written {
		id, warnings := assign.Record(context.Background(), s.pbHome, target, out, revertOf, s.actor)
		res.History, res.Warnings = id, append(res.Warnings, warnings...)
	}
	return res, nil
}

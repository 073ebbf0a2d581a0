package assign

import (
	"context"
	"errors"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/store"
)

// Request is one save a person asks for through a door (the page, the CLI): a Change of
// Target guarded by ExpectHash, or, when RevertOf is set, the revert of that history
// entry (Target, Change and ExpectHash are then unused: the entry says them).
type Request struct {
	Target     string
	Change     Change
	ExpectHash string // "": no guard from the caller (the save still guards its own read)
	RevertOf   int64  // a history entry id: revert it instead
	Ack        bool   // acknowledge the MCP servers the save brings in
	Actor      string // who saves, for the history: "desktop", "http", "cli"
}

// Saved is a save that went through: its Outcome (Written false when no byte changed)
// and its history entry.
type Saved struct {
	Target   string // the target saved; for a revert, its entry's
	Outcome  Outcome
	History  int64    // the entry's id; 0 when nothing was written or it was not recorded
	Warnings []string // why the save is not recorded; never nil
	// Files are the whole files a revert of an agent or slot operation put back (nil for
	// a save of pluginDirs).
	Files []FileWritten
}

// Failure kinds of a SaveError: what a door branches on to present it.
const (
	FailStale     = "stale"      // the target changed since it was read; Fresh is it now
	FailRefused   = "refused"    // a rule refused the change; Rule says which and why
	FailAckNeeded = "ack-needed" // MCP servers need an acknowledgment; Servers lists them
	FailReadOnly  = "read-only"  // the target, or its file, cannot be written
	FailNotFound  = "not-found"  // no such target, or no such history entry
	FailOther     = "other"      // anything else (I/O, a file that changed shape)
)

// SaveError is a save that did not happen, sorted for a door to present. Nothing was
// written. Err is the underlying error (errors.Is and errors.As see it).
type SaveError struct {
	Kind    string     // a Fail* constant
	Target  string     // the target the save was for ("" when a revert's entry is unknown)
	Fresh   Target     // FailStale: the target as it is now (zero when it is gone)
	Rule    *RuleError // FailRefused
	Servers []Ack      // FailAckNeeded
	Err     error
}

func (e *SaveError) Error() string { return e.Err.Error() }
func (e *SaveError) Unwrap() error { return e.Err }

// SaveAndRecord makes one guarded save (Apply, or Revert for r.RevertOf), records it in
// the history when it wrote (Record, as r.Actor), and sorts a failure into a *SaveError.
// It is the one place the page and the CLI save an assignment; each presents the result
// in its own way. ctx is the caller's: a save is not started once it is done, and it
// bounds the history's database work (a save written and then not recorded is reported
// in Warnings, as Record does).
func SaveAndRecord(ctx context.Context, pbHome string, cat *catalog.Catalog, r Request) (Saved, error) {
	var (
		out Outcome
		err error
	)
	target := TargetID(r.Target)
	r.Target = target
	if err := ctx.Err(); err != nil {
		return Saved{}, classify(target, err) // the caller gave up: nothing is started
	}
	if r.RevertOf != 0 {
		var e store.HistoryEntry
		var files *FilesSaved
		out, e, files, err = revert(ctx, pbHome, cat, r.RevertOf, r.Ack, r.Actor)
		target = e.Target
		if files != nil && err == nil {
			return Saved{Target: target, Outcome: out, History: files.History, Warnings: files.Warnings, Files: files.Files}, nil
		}
	} else {
		out, err = Apply(pbHome, cat, r.Target, r.Change, r.ExpectHash, r.Ack)
	}
	if err != nil {
		return Saved{}, classify(target, err)
	}
	res := Saved{Target: target, Outcome: out, Warnings: []string{}}
	if out.Written {
		id, warnings := Record(ctx, pbHome, target, out, r.RevertOf, r.Actor)
		res.History, res.Warnings = id, append(res.Warnings, warnings...)
	}
	return res, nil
}

func classify(target string, err error) *SaveError {
	se := &SaveError{Kind: FailOther, Target: target, Err: err}
	var stale *StaleError
	var need *AckError
	switch {
	case errors.As(err, &stale):
		se.Kind, se.Fresh = FailStale, stale.Fresh
	case errors.As(err, &se.Rule):
		se.Kind = FailRefused
	case errors.As(err, &need):
		se.Kind, se.Servers = FailAckNeeded, need.Servers
	case errors.Is(err, ErrReadOnly):
		se.Kind = FailReadOnly
	case errors.Is(err, ErrNotFound), errors.Is(err, store.ErrNotFound):
		se.Kind = FailNotFound
	}
	return se
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// How a skill was invoked.
const (
	HowModel = "model" // the agent's model called it (Claude's Skill tool, PI's read of its SKILL.md)
	HowUser  = "user"  // the user typed its slash command
)

// The kinds of record.
const (
	KindSkill = "skill" // a skill invocation (an empty Kind, as spooled before tools were counted, is one)
	KindTool  = "tool"  // one MCP tools/call relayed by plugboard mcp-stdio or mcp-proxy
)

// Activity is one skill invocation or one MCP tool call of a launched agent (R8). It
// holds names and ids only: never a prompt, an argument, a tool result or any other
// value.
type Activity struct {
	// Key identifies the invocation, so that recording it twice keeps one row: the hook
	// derives it from the agent's session and its own id of the call.
	Key         string    `json:"key"`
	Time        time.Time `json:"time"` // UTC
	Target      string    `json:"target"`
	Backend     string    `json:"backend"`
	Fingerprint string    `json:"fingerprint"`
	Session     string    `json:"session"`
	Skill       string    `json:"skill"`            // as the agent names it: plugin:skill, or a bare name
	Plugin      string    `json:"plugin"`           // plugin id, when the launch's projection knows the skill
	Version     string    `json:"version"`          // the plugin's version then
	Hash        string    `json:"hash"`             // the skill folder's content hash then
	How         string    `json:"how"`              // HowModel or HowUser; HowModel for a tool call
	Kind        string    `json:"kind,omitempty"`   // KindSkill ("" too) or KindTool
	Server      string    `json:"server,omitempty"` // a tool call's MCP server, as the launch configured it
	Tool        string    `json:"tool,omitempty"`   // a tool call's tool name
	MS          int64     `json:"ms,omitempty"`     // a tool call's time to its answer, in milliseconds
	Failed      bool      `json:"failed,omitempty"` // a tool call answered with an error
	// Run is the id plugboard try gives the agent it starts (runtime.ActivityRunEnv); ""
	// for any other launch.
	Run string `json:"run,omitempty"`
}

// IsTool reports whether a is an MCP tool call.
func (a Activity) IsTool() bool { return a.Kind == KindTool }

// maxName bounds every text field of an Activity: they are names and ids, never text a
// person wrote.
const maxName = 512

// check refuses a record that is not made of names: a missing key, skill or way, or a
// field that is long or holds control characters (a prompt that slipped in).
func (a Activity) check() error {
	switch a.Kind {
	case "", KindSkill:
		if a.Key == "" || a.Skill == "" || (a.How != HowModel && a.How != HowUser) {
			return fmt.Errorf("activity record: needs a key, a skill and how it was invoked (%q or %q)", HowModel, HowUser)
		}
	case KindTool:
		if a.Key == "" || a.Server == "" || a.Tool == "" || a.How != HowModel || a.MS < 0 {
			return fmt.Errorf("activity record: a tool call needs a key, a server, a tool, how %q and a time of 0 ms or more", HowModel)
		}
	default:
		return fmt.Errorf("activity record: kind %.40q is neither %q nor %q", a.Kind, KindSkill, KindTool)
	}
	for _, f := range []string{a.Key, a.Target, a.Backend, a.Fingerprint, a.Session, a.Skill, a.Plugin, a.Version, a.Hash,
		a.Server, a.Tool, a.Run} {
		if len(f) > maxName || strings.ContainsFunc(f, unicode.IsControl) {
			return fmt.Errorf("activity record: %.40q is not a name", f)
		}
	}
	return nil
}

const activityColumns = `key, time, target, backend, fingerprint, session, skill, plugin, version, hash, how, kind, server, tool, ms, failed, run`

const insertActivity = `INSERT OR IGNORE INTO activity (` + activityColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

type execer interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}

// insertOne adds a unless its key is recorded already, and reports whether it did.
func insertOne(ctx context.Context, db execer, a Activity) (bool, error) {
	if a.Time.IsZero() {
		a.Time = time.Now()
	}
	if a.Kind == "" {
		a.Kind = KindSkill
	}
	res, err := db.ExecContext(ctx, insertActivity, a.Key, a.Time.UTC().Format(timeLayout), a.Target, a.Backend,
		a.Fingerprint, a.Session, a.Skill, a.Plugin, a.Version, a.Hash, a.How, a.Kind, a.Server, a.Tool, a.MS, a.Failed, a.Run)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// AddActivity records the invocations in one transaction; one whose key is recorded
// already is skipped. It returns how many were added. A zero Time becomes now.
func (s *Store) AddActivity(ctx context.Context, recs ...Activity) (added int, err error) {
	for _, a := range recs {
		if err := a.check(); err != nil {
			return 0, err
		}
	}
	err = s.WithTx(ctx, func(tx *sql.Tx) error {
		added = 0
		for _, a := range recs {
			ok, err := insertOne(ctx, tx, a)
			if err != nil {
				return err
			}
			if ok {
				added++
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("record skill activity: %w", err)
	}
	return added, nil
}

// Activity returns the invocations and tool calls recorded at or after since (zero:
// all), oldest first.
func (s *Store) Activity(ctx context.Context, since time.Time) ([]Activity, error) {
	return s.queryActivity(ctx, `time >= ?`, since.UTC().Format(timeLayout))
}

// queryActivity returns the records that match where, oldest first.
func (s *Store) queryActivity(ctx context.Context, where string, args ...any) ([]Activity, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+activityColumns+` FROM activity WHERE `+where+` ORDER BY time, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("read skill activity: %w", mapErr(err))
	}
	defer rows.Close()
	out := []Activity{}
	for rows.Next() {
		var a Activity
		var when string
		if err := rows.Scan(&a.Key, &when, &a.Target, &a.Backend, &a.Fingerprint, &a.Session, &a.Skill, &a.Plugin,
			&a.Version, &a.Hash, &a.How, &a.Kind, &a.Server, &a.Tool, &a.MS, &a.Failed, &a.Run); err != nil {
			return nil, fmt.Errorf("read skill activity: %w", mapErr(err))
		}
		if a.Time, err = parseTime(when); err != nil {
			return nil, fmt.Errorf("read skill activity: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read skill activity: %w", mapErr(err))
	}
	return out, nil
}

// RunActivity returns the records of one try's run (Activity.Run), oldest first.
func (s *Store) RunActivity(ctx context.Context, run string) ([]Activity, error) {
	if run == "" {
		return []Activity{}, nil
	}
	return s.queryActivity(ctx, `run = ?`, run)
}

// PruneActivity removes the records older than before and returns how many it removed:
// the retention the user set (settings' activityRetentionDays).
func (s *Store) PruneActivity(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM activity WHERE time < ?`, before.UTC().Format(timeLayout))
	if err != nil {
		return 0, fmt.Errorf("remove old skill activity: %w", mapErr(err))
	}
	return res.RowsAffected()
}

// errNoDatabase: RecordActivity found no database to write to (the spool takes the
// record, and the first Open imports it).
var errNoDatabase = errors.New("no Plugboard database yet")

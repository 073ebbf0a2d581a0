package activity

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
)

// maxHookInput bounds what Record reads of a hook's stdin. A Skill call's input is well
// under a kilobyte (a PI event's, a few hundred bytes); anything larger is read up to
// here and then not a hook's.
const maxHookInput = 1 << 20

// Outcome is what Record did.
type Outcome struct {
	Recorded bool           // the input reported an invocation and it was kept
	Spooled  bool           // kept in the spool, not yet in the database
	Activity store.Activity // the record, when Recorded
}

// Record is "plugboard activity record INDEX": it reads one Claude Code hook input from
// stdin and records the skill invocation it reports for the launch whose projection
// holds the index file. The store is the one of the index's Plugboard home (a missing
// or unreadable index: the home that holds the projection, runtime/<backend>/<fp>/ under
// it). getenv gives the target (runtime.ActivityTargetEnv), the run
// (runtime.ActivityRunEnv) and HOME.
func Record(ctx context.Context, index string, stdin io.Reader, getenv func(string) string) (Outcome, error) {
	return record(ctx, runtime.Claude, index, stdin, getenv)
}

// RecordPI is "plugboard activity record --pi INDEX": Record for one event of a PI
// launch's activity extension (FromPIEvent) on stdin.
func RecordPI(ctx context.Context, index string, stdin io.Reader, getenv func(string) string) (Outcome, error) {
	return record(ctx, runtime.PI, index, stdin, getenv)
}

// RecordCodex is "plugboard activity record --codex INDEX": Record for one PreToolUse
// hook input of a Codex launch (FromCodexHook) on stdin.
func RecordCodex(ctx context.Context, index string, stdin io.Reader, getenv func(string) string) (Outcome, error) {
	return record(ctx, runtime.Codex, index, stdin, getenv)
}

// record reads the input of the backend's recorder (Claude's hooks, PI's extension) and
// records the invocation it reports.
func record(ctx context.Context, backend, index string, stdin io.Reader, getenv func(string) string) (Outcome, error) {
	var from func([]byte, *runtime.ActivityIndex, Where) (store.Activity, bool)
	switch backend {
	case runtime.Claude:
		from = FromClaudeHook
	case runtime.PI:
		from = FromPIEvent
	case runtime.Codex:
		from = FromCodexHook
	default:
		return Outcome{}, errors.New("no activity input of backend " + backend)
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxHookInput+1))
	if err != nil {
		return Outcome{}, err
	}
	if len(data) > maxHookInput {
		return Outcome{}, errors.New("the hook input is larger than a hook's")
	}
	pbHome := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(index))))
	ix, ierr := runtime.ReadActivityIndex(index)
	if ierr == nil && ix.Home != "" {
		pbHome = ix.Home
	}
	a, ok := from(data, ix, Where{Target: getenv(runtime.ActivityTargetEnv), Home: getenv("HOME"), Now: time.Now()})
	if !ok {
		return Outcome{}, nil
	}
	if ix == nil {
		a.Backend = backend
	}
	a.Run = getenv(runtime.ActivityRunEnv)
	spooled, err := store.RecordActivity(ctx, pbHome, a)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Recorded: true, Spooled: spooled, Activity: a}, nil
}

// Package try starts an agent on a launch's projection for one prompt and reports which
// skills and MCP tools the model invoked in that turn, and the answer (issue 13, item 3).
//
// A Runner builds the launch as plugboard launch does (runtime.Build: the same
// projection, fingerprint and acknowledgments), then talks to the agent in its
// non-interactive session mode through a runtime.Pool session: Claude Code's stream-json
// input (one user message, read until its "result" event) or PI's RPC mode (a "prompt"
// command, read until "agent_end", then "get_last_assistant_text"). What was invoked is
// read from the activity store, not from the agent's output: every agent a Runner starts
// has ActivityRunEnv set to the Runner's run id, so its hooks, its PI extension and its
// MCP relays tag their records with it, and the records of the run that were not there
// before the prompt are this turn's. The recorders write before the agent goes on (a
// hook, the extension and the relays each finish their write before the agent sees the
// invocation's result), so they are in the store when the turn ends.
//
// Warm processes. With a pool (Options.Pool) a later try on the same launch (the same
// fingerprint, argv and environment) reuses the live process: its conversation is reset
// first (Claude: the /clear command; PI: new_session), so that no try sees another's
// prompt. Without one, each try starts a process and stops it after.
//
// Concurrency: a Runner's tries run one at a time; a session is used by one try at a
// time (Session.Converse).
package try

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
)

// DefaultTimeout bounds one try: the agent's whole turn, tool calls included.
const DefaultTimeout = 5 * time.Minute

// Options say what a Runner launches.
type Options struct {
	// Request is the launch: a target or plugin folders, the backend, the agent. Its
	// Args are passed to the agent after the launch's own arguments.
	Request runtime.Request
	// Pool keeps warm sessions between tries; nil starts a process for each try and stops
	// it after.
	Pool    *runtime.Pool
	Timeout time.Duration // per try; 0 is DefaultTimeout
}

// Runner runs tries of one launch.
type Runner struct {
	opts Options
	run  string
	mu   sync.Mutex
}

// New returns a Runner with a run id of its own.
func New(o Options) *Runner {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return &Runner{opts: o, run: "try-" + hex.EncodeToString(b)}
}

// Result is one try.
type Result struct {
	Target      string `json:"target"`
	Backend     string `json:"backend"`
	Fingerprint string `json:"fingerprint"`
	// Warm is true when a live process of an earlier try answered (its conversation
	// reset first).
	Warm   bool         `json:"warm"`
	Answer string       `json:"answer"`
	Skills []Invocation `json:"skills"` // in the order they were invoked
	Tools  []ToolCall   `json:"tools"`
	MS     int64        `json:"ms"` // from the prompt to the end of the turn
	// Dropped is what the launch left out (a server not acknowledged …), as the plan
	// says.
	Dropped []runtime.Drop `json:"dropped"`
}

// Invocation is one skill the turn invoked.
type Invocation struct {
	Skill  string `json:"skill"` // as the agent names it
	Plugin string `json:"plugin"`
	How    string `json:"how"` // store.HowModel or store.HowUser
}

// ToolCall is one MCP tool call of the turn.
type ToolCall struct {
	Server string `json:"server"`
	Plugin string `json:"plugin"`
	Tool   string `json:"tool"`
	MS     int64  `json:"ms"`
	Failed bool   `json:"failed"`
}

// MissingClientError is a try's error when its agent client is not there: Bin, the
// plan's executable, is not on PATH or names a file that does not exist. It is told
// before any process starts.
type MissingClientError struct {
	Backend, Bin string
	Err          error
}

func (e *MissingClientError) Error() string {
	return fmt.Sprintf("the %s client %s cannot be started: %v", e.Backend, e.Bin, e.Err)
}

func (e *MissingClientError) Unwrap() error { return e.Err }

// Try runs prompt as one turn of the agent and reports what it invoked.
func (r *Runner) Try(ctx context.Context, prompt string) (*Result, error) {
	if strings.TrimSpace(prompt) == "" {
		return nil, errors.New("the prompt is empty")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	timeout := r.opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	plan, err := runtime.Build(r.opts.Request)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath(plan.Argv[0]); err != nil {
		return nil, &MissingClientError{Backend: plan.Backend, Bin: plan.Argv[0], Err: err}
	}
	plan.SetEnv(runtime.ActivityRunEnv, r.run)
	if oneShot(plan.Backend) {
		return r.tryOnce(ctx, plan, prompt)
	}
	if plan.Backend == runtime.Claude {
		plan.Argv = append(plan.Argv, "--allowedTools", claudeAllowed(plan))
	}
	pool := r.opts.Pool
	if pool == nil {
		pool = &runtime.Pool{Max: 1}
		defer pool.Close()
	}
	sess, err := pool.Get(ctx, plan)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", plan.Argv[0], err)
	}
	res := newResult(plan)
	var seen map[string]bool
	var start time.Time
	err = sess.Converse(ctx, func(c *runtime.Conn, before int) error {
		res.Warm = before > 0
		if res.Warm {
			if err := reset(c, plan.Backend); err != nil {
				return fmt.Errorf("reset the warm session: %w", err)
			}
		}
		// What the run holds now is not this turn's (earlier tries, the reset).
		var err error
		if seen, err = r.marks(ctx); err != nil {
			return err
		}
		start = time.Now()
		res.Answer, err = turn(c, plan.Backend, prompt)
		return err
	})
	res.MS = time.Since(start).Milliseconds()
	if err != nil {
		return res, err
	}
	return res, r.addSince(ctx, res, seen, true)
}

// tryOnce is a try of a one-shot backend (oneshot.go): the skills from the agent's
// events, the MCP tool calls from the activity store.
func (r *Runner) tryOnce(ctx context.Context, plan *runtime.Plan, prompt string) (*Result, error) {
	res := newResult(plan)
	seen, err := r.marks(ctx)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	out, err := runOneShot(ctx, plan, prompt)
	res.MS = time.Since(start).Milliseconds()
	res.Answer = out.answer
	for _, s := range out.skills {
		res.Skills = append(res.Skills, Invocation{Skill: s, Plugin: plan.SkillPlugin(s), How: store.HowModel})
	}
	if err != nil {
		return res, err
	}
	return res, r.addSince(ctx, res, seen, false)
}

// newResult is a try's result for plan before its turn.
func newResult(plan *runtime.Plan) *Result {
	return &Result{Target: plan.Target, Backend: plan.Backend, Fingerprint: plan.Fingerprint,
		Skills: []Invocation{}, Tools: []ToolCall{}, Dropped: plan.Dropped}
}

// marks are the keys of the run's records now: what is there before a turn is not its.
func (r *Runner) marks(ctx context.Context) (map[string]bool, error) {
	recs, err := r.records(ctx)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(recs))
	for _, a := range recs {
		seen[a.Key] = true
	}
	return seen, nil
}

// addSince adds to res the run's records not in seen: the MCP tool calls, and the skill
// uses when skills (a one-shot try takes those from the agent's events instead).
func (r *Runner) addSince(ctx context.Context, res *Result, seen map[string]bool, skills bool) error {
	recs, err := r.records(ctx)
	if err != nil {
		return err
	}
	for _, a := range recs {
		switch {
		case seen[a.Key]:
		case a.IsTool():
			res.Tools = append(res.Tools, ToolCall{Server: a.Server, Plugin: a.Plugin, Tool: a.Tool, MS: a.MS, Failed: a.Failed})
		case skills:
			res.Skills = append(res.Skills, Invocation{Skill: a.Skill, Plugin: a.Plugin, How: a.How})
		}
	}
	return nil
}

// records reads the run's records (opening the store imports what recorders spooled).
func (r *Runner) records(ctx context.Context) ([]store.Activity, error) {
	st, _, err := store.Open(ctx, r.opts.Request.PlugboardHome, store.PartRunActivity)
	if err != nil {
		return nil, fmt.Errorf("read the try's activity: %w", err)
	}
	defer st.Close()
	return st.RunActivity(ctx, r.run)
}

// claudeAllowed lets the turn use the Skill tool and every tool of the launch's MCP
// servers without a permission prompt (there is nobody to answer one): what a try
// measures is what the model picks.
func claudeAllowed(plan *runtime.Plan) string {
	allowed := []string{"Skill"}
	for _, s := range plan.Servers {
		allowed = append(allowed, "mcp__"+s)
	}
	return strings.Join(allowed, ",")
}

// reset starts a new conversation in a warm session.
func reset(c *runtime.Conn, backend string) error {
	if backend == runtime.PI {
		if err := c.Write(mustJSON(map[string]string{"type": "new_session"})); err != nil {
			return err
		}
		_, err := piResponse(c, "new_session")
		return err
	}
	_, err := claudeTurn(c, "/clear")
	return err
}

// turn sends the prompt and returns the answer.
func turn(c *runtime.Conn, backend, prompt string) (string, error) {
	if backend != runtime.PI {
		return claudeTurn(c, prompt)
	}
	if err := c.Write(mustJSON(map[string]string{"id": "try", "type": "prompt", "message": prompt})); err != nil {
		return "", err
	}
	for {
		line, err := c.Read()
		if err != nil {
			return "", err
		}
		var ev piEvent
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		if ev.Type == "response" && ev.Command == "prompt" && !ev.Success {
			return "", fmt.Errorf("pi refused the prompt: %s", ev.Error)
		}
		if ev.Type == "agent_end" {
			break
		}
	}
	if err := c.Write(mustJSON(map[string]string{"type": "get_last_assistant_text"})); err != nil {
		return "", err
	}
	data, err := piResponse(c, "get_last_assistant_text")
	if err != nil {
		return "", err
	}
	var text struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(data, &text)
	return text.Text, nil
}

// claudeTurn sends one user message in Claude Code's stream-json input and reads until
// its result.
func claudeTurn(c *runtime.Conn, text string) (string, error) {
	msg := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}}
	if err := c.Write(mustJSON(msg)); err != nil {
		return "", err
	}
	for {
		line, err := c.Read()
		if err != nil {
			return "", err
		}
		var ev struct {
			Type    string   `json:"type"`
			Subtype string   `json:"subtype"`
			Result  string   `json:"result"`
			IsError bool     `json:"is_error"`
			Errors  []string `json:"errors"`
		}
		if json.Unmarshal(line, &ev) != nil || ev.Type != "result" {
			continue
		}
		if ev.IsError || ev.Subtype != "success" {
			why := ev.Result
			if why == "" {
				why = strings.Join(ev.Errors, "; ")
			}
			return ev.Result, fmt.Errorf("claude ended the turn with %s: %s", ev.Subtype, why)
		}
		return ev.Result, nil
	}
}

// piEvent is the part of a PI RPC line a try reads.
type piEvent struct {
	Type    string          `json:"type"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Error   string          `json:"error"`
	Data    json.RawMessage `json:"data"`
}

// piResponse reads until PI's response to command and returns its data.
func piResponse(c *runtime.Conn, command string) (json.RawMessage, error) {
	for {
		line, err := c.Read()
		if err != nil {
			return nil, err
		}
		var ev piEvent
		if json.Unmarshal(line, &ev) != nil || ev.Type != "response" || ev.Command != command {
			continue
		}
		if !ev.Success {
			return nil, fmt.Errorf("pi answered %s with an error: %s", command, ev.Error)
		}
		return ev.Data, nil
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

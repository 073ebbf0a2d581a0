package try

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
)

// Codex and Copilot CLI have no session mode Plugboard drives, so a try of theirs
// starts the agent for the one prompt, in its non-interactive mode with JSON events on
// stdout, and reads it to the end: the answer is its last assistant message, and the
// skills it invoked are read from the events (Copilot CLI's skill tool; Codex's commands
// that read a projected SKILL.md from its launch home). Each try is a cold process. Its
// MCP tool calls are read from the activity store, like every backend's: the relays
// record them under the run id the agent's environment carries.

// oneShot reports whether backend's tries run this way.
func oneShot(backend string) bool { return backend == runtime.Codex || backend == runtime.Copilot }

// oneShotArgs are the arguments a try adds after the launch's own: the prompt, JSON
// events, and permission for the launch's skills and MCP tools only (no prompt can be
// answered), as Claude's try gets --allowedTools.
func oneShotArgs(plan *runtime.Plan, prompt string) []string {
	if plan.Backend == runtime.Codex {
		args := []string{"exec", "--json", "--skip-git-repo-check"}
		for _, s := range plan.Servers {
			args = append(args, "-c", "mcp_servers."+s+`.default_tools_approval_mode="approve"`)
		}
		return append(args, "--", prompt)
	}
	args := []string{"-p", prompt, "--output-format", "json", "--no-auto-update", "--allow-tool", "skill"}
	for _, s := range plan.Servers {
		args = append(args, "--allow-tool", s)
	}
	return args
}

// turnOut is what a one-shot turn printed that a try reads.
type turnOut struct {
	answer string
	skills []string // as the agent names them, in order, once each
}

// runOneShot starts plan's agent with the try's arguments and reads its events to the end.
func runOneShot(ctx context.Context, plan *runtime.Plan, prompt string) (turnOut, error) {
	argv := append(append([]string{}, plan.Argv...), oneShotArgs(plan, prompt)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = plan.Env(os.Environ())
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its MCP servers go with it
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var stderr tailBuf
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return turnOut{}, err
	}
	if err := cmd.Start(); err != nil {
		return turnOut{}, fmt.Errorf("start %s: %w", argv[0], err)
	}
	var res turnOut
	var failed string
	read := readCopilot
	if plan.Backend == runtime.Codex {
		read = readCodex(codexSkillFiles(plan))
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if why := read(sc.Bytes(), &res); why != "" {
			failed = why
		}
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case failed != "":
		return res, fmt.Errorf("%s ended the turn with an error: %s", plan.Backend, failed)
	case werr != nil:
		return res, fmt.Errorf("%s exited with %v: %s", plan.Backend, werr, stderr.String())
	}
	return res, nil
}

// codexSkillFiles is each skill's SKILL.md where Codex reads it: in its launch home's
// skills/.
func codexSkillFiles(plan *runtime.Plan) map[string]string {
	files := map[string]string{}
	for _, kv := range plan.Env(nil) {
		if h, ok := strings.CutPrefix(kv, runtime.CodexHomeEnv+"="); ok {
			for _, name := range plan.Skills {
				files[name] = filepath.Join(h, "skills", name, "SKILL.md")
			}
		}
	}
	return files
}

func (t *turnOut) invoked(name string) {
	for _, s := range t.skills {
		if s == name {
			return
		}
	}
	t.skills = append(t.skills, name)
}

// readCopilot reads one line of Copilot CLI's JSON events: a skill tool call's start
// names the skill, an assistant message with content is the answer so far, and an error
// event is the turn's failure.
func readCopilot(line []byte, t *turnOut) string {
	var ev struct {
		Type string `json:"type"`
		Data struct {
			ToolName  string `json:"toolName"`
			Arguments struct {
				Skill string `json:"skill"`
			} `json:"arguments"`
			Content string `json:"content"`
			Message string `json:"message"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return ""
	}
	switch ev.Type {
	case "tool.execution_start":
		if ev.Data.ToolName == "skill" && ev.Data.Arguments.Skill != "" {
			t.invoked(ev.Data.Arguments.Skill)
		}
	case "assistant.message":
		if ev.Data.Content != "" {
			t.answer = ev.Data.Content
		}
	case "session.error":
		return ev.Data.Message
	}
	return ""
}

// readCodex reads Codex's exec --json events: a command that reads the SKILL.md of one
// of the launch's skills (files: each where Codex lists it) invokes that skill (Codex's
// way of using one), the last agent message is the answer, and a failed turn or an
// error event is the failure.
func readCodex(files map[string]string) func(line []byte, t *turnOut) string {
	return func(line []byte, t *turnOut) string {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Text    string `json:"text"`
			} `json:"item"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
			Message string `json:"message"`
		}
		if json.Unmarshal(line, &ev) != nil {
			return ""
		}
		switch {
		case ev.Type == "turn.failed":
			return ev.Error.Message
		case ev.Type == "error":
			return ev.Message
		case ev.Item.Type == "agent_message":
			t.answer = ev.Item.Text
		case ev.Item.Type == "command_execution":
			for _, name := range runtime.SkillsNamedIn(ev.Item.Command, files) {
				t.invoked(name)
			}
		}
		return ""
	}
}

// tailBuf keeps the last 4 KiB written, for an error message.
type tailBuf struct{ b []byte }

func (t *tailBuf) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailBuf) String() string { return strings.TrimSpace(string(t.b)) }

package app

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plugboard/plugboard/backend/argerr"
	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/runtime"
)

// More error codes, for launches.
const (
	CodeNoTerminal = "no-terminal" // no terminal program; Hint is the command to run in one
)

// LaunchResult is a launch opened in the user's terminal.
type LaunchResult struct {
	// Command is the agent's command line exactly as the launch runs it, shell-quoted: its
	// argv, after the client's private home for Codex and Copilot CLI (Plan.Command).
	Command string `json:"command"`
	// Terminal is the command line that opened the terminal, shell-quoted: it runs
	// "plugboard launch", which reads the target again at spawn (R1).
	Terminal string        `json:"terminal"`
	Plan     *runtime.Plan `json:"plan"`
}

// Launch opens the target's agent in the user's terminal ($TERMINAL, else
// x-terminal-emulator). It builds the plan first, so a set that cannot launch (a name
// collision, an unknown target) is refused here with its reasons rather than in a
// terminal window that closes at once. backend "" uses the agent's own. With requireAck,
// MCP servers that are not acknowledged for the target stop the launch with
// CodeNeedAck (Servers lists them; Acknowledge records them); without it they are left
// out of the launch (the plan's dropped entries carry an ack).
func (s *Service) Launch(target, backend string, requireAck bool) (LaunchResult, error) {
	req, err := s.launchRequest(target, "", backend)
	if err != nil {
		return LaunchResult{}, err
	}
	req.RequireAck = requireAck
	self := req.Self
	plan, err := runtime.Build(req)
	if err != nil {
		return LaunchResult{}, launchError(err)
	}
	if err := clientReady(plan.Backend, plan.Argv); err != nil {
		return LaunchResult{Command: runtime.ShellQuote(plan.Command()), Plan: plan}, err
	}
	argv := []string{self, "launch", plan.Target, "--backend", plan.Backend, "--home", s.pbHome}
	res := LaunchResult{Command: runtime.ShellQuote(plan.Command()), Plan: plan}
	res.Terminal, err = s.inTerminal(argv, "the agent")
	return res, err
}

// inTerminal runs argv in the user's terminal ($TERMINAL, else x-terminal-emulator), in
// a session of its own so that it outlives the app, and returns the command line that
// opened the terminal. what names what would have run, for the error when there is no
// terminal (its Hint is argv, to run by hand).
func (s *Service) inTerminal(argv []string, what string) (string, error) {
	term := s.getenv("TERMINAL")
	if term == "" {
		term = "x-terminal-emulator"
	}
	termPath, err := exec.LookPath(term)
	if err != nil {
		return "", &Error{Code: CodeNoTerminal, Message: "there is no terminal to open " + what + " in: install one (xterm, GNOME Terminal, Konsole) or set $TERMINAL to it; or copy the command below into a terminal of your own",
			Hint: runtime.ShellQuote(argv)}
	}
	full := append([]string{term, "-e"}, argv...)
	if err := start(termPath, full[1:]); err != nil {
		return "", &Error{Code: CodeNoTerminal, Message: "cannot start " + term + ": " + err.Error()}
	}
	return runtime.ShellQuote(full), nil
}

// start runs a program in a session of its own (it outlives the app) and reaps it.
func start(path string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

// CodeClientMissing: the agent client a launch or try needs is not installed (Hint is
// the command that installs it).
const CodeClientMissing = "client-missing"

// clientInstall is how each backend's client is installed, for the hint of
// CodeClientMissing (the packages build/agents pins).
var clientInstall = map[string]struct{ name, install string }{
	runtime.Claude:  {"Claude Code", "npm install -g @anthropic-ai/claude-code"},
	runtime.PI:      {"PI", "npm install -g @mariozechner/pi-coding-agent"},
	runtime.Codex:   {"Codex", "npm install -g @openai/codex"},
	runtime.Copilot: {"GitHub Copilot CLI", "npm install -g @github/copilot"},
}

// Backend is one backend the launch card offers: its name, the client's name for
// people, and whether its executable is found (PLUGBOARD_<NAME>_BIN, else its name on
// the PATH Plugboard was started with).
type Backend struct {
	Name      string `json:"name"`
	Client    string `json:"client"`
	Installed bool   `json:"installed"`
	Path      string `json:"path,omitempty"`
	// Install is the command that installs the client, for one that is not found.
	Install string `json:"install,omitempty"`
}

// Backends lists the backends a launch knows, in runtime.Backends order, each with
// whether its client is installed here, so that the page offers what can start.
func (s *Service) Backends() ([]Backend, error) {
	var req runtime.Request
	req.FromEnv(s.getenv)
	out := make([]Backend, 0, len(runtime.Backends))
	for _, b := range runtime.Backends {
		c := clientInstall[b]
		bin := req.Bins[b]
		if bin == "" {
			bin = b
		}
		e := Backend{Name: b, Client: c.name}
		if p, err := lookPathIn(bin, s.getenv("PATH")); err == nil {
			e.Installed, e.Path = true, p
		} else {
			e.Install = c.install
		}
		out = append(out, e)
	}
	return out, nil
}

// lookPathIn finds bin as exec.LookPath does, on the PATH value path (the app's
// environment, which tests give their own).
func lookPathIn(bin, path string) (string, error) {
	if strings.Contains(bin, "/") {
		return exec.LookPath(bin)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(dir, bin)); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// clientReady says, before a terminal opens or a try starts, that the client bin of
// backend cannot be found, rather than a terminal that closes at once or a Go error.
func clientReady(backend string, argv []string) error {
	if len(argv) == 0 {
		return nil
	}
	bin := argv[0]
	if _, err := exec.LookPath(bin); err == nil {
		return nil
	}
	return clientMissing(backend, bin)
}

// clientMissing is the page's error for the client bin of backend, not found.
func clientMissing(backend, bin string) error {
	c, ok := clientInstall[backend]
	if !ok {
		c.name = backend
	}
	return &Error{Code: CodeClientMissing, Hint: c.install,
		Message: fmt.Sprintf("%s (%s) is not installed here, or not on the PATH Plugboard was started with, so it cannot be launched: install it, then try again", c.name, bin)}
}

// AckResult is what an acknowledgment recorded: the target, the servers (empty when
// every one named was acknowledged already) and the history entry (0 then).
type AckResult struct {
	Target       string       `json:"target"`
	Acknowledged []assign.Ack `json:"acknowledged"`
	History      int64        `json:"history"`
}

// launchError is the page's error for a launch that could not be built (Launch, Try): the
// servers to acknowledge, the collisions, an unknown target; anything else is CodeIO.
func launchError(err error) error {
	var ce *runtime.CollisionError
	var need *runtime.AckError
	switch {
	case errors.As(err, &need):
		return &Error{Code: CodeNeedAck, Message: "these MCP servers are not acknowledged for " + need.Target +
			" as they are now; they run local code or send data over the network. Acknowledge them to launch with them, or launch without them", Servers: need.Servers}
	case errors.As(err, &ce):
		names := make([]string, len(ce.Collisions))
		for i, c := range ce.Collisions {
			names[i] = c.Name
		}
		return &Error{Code: CodeRefused, Message: pageMessage(err.Error(), ""), Names: names, Collisions: ce.Collisions}
	case errors.Is(err, argerr.ErrBadArgument): // an unknown backend asked for
		return &Error{Code: CodeInvalid, Message: pageMessage(err.Error(), "")}
	case errors.Is(err, runtime.ErrTarget):
		return &Error{Code: CodeNotFound, Message: pageMessage(err.Error(), "")}
	default:
		return &Error{Code: CodeIO, Message: pageMessage(err.Error(), "")}
	}
}

// Acknowledge records, for target, the MCP servers of its launch set that servers names
// (each with the digest the page showed; none: every server not acknowledged yet), so
// launches start them until what they run changes. Errors: CodeStale when a server
// changed since it was shown (Servers lists the launch set's servers as they are now),
// CodeRefused for a server not in the set, CodeNotFound for an unknown target.
func (s *Service) Acknowledge(target string, servers []runtime.AckRef) (AckResult, error) {
	if servers == nil { // null, or no argument: only an explicit [] means every server not acknowledged yet
		return AckResult{}, &Error{Code: CodeInvalid, Message: "servers is missing: give the servers shown, each with its digest, or [] for every server not acknowledged yet"}
	}
	req := runtime.Request{Home: s.home, PlugboardHome: s.pbHome, Target: target}
	id, acks, hid, err := runtime.Acknowledge(req, servers, s.actor)
	var rule *assign.RuleError
	switch {
	case errors.Is(err, runtime.ErrAckChanged):
		_, now, _ := runtime.LaunchServers(req)
		fresh := []assign.Ack{}
		for _, a := range now {
			if !a.Acknowledged {
				fresh = append(fresh, a.Ack)
			}
		}
		return AckResult{}, &Error{Code: CodeStale, Message: err.Error(), Servers: fresh}
	case errors.As(err, &rule):
		return AckResult{}, &Error{Code: CodeRefused, Message: rule.Reason, Names: rule.Names}
	case errors.Is(err, runtime.ErrTarget), errors.Is(err, assign.ErrNotFound):
		return AckResult{}, &Error{Code: CodeNotFound, Message: err.Error()}
	case err != nil:
		return AckResult{}, &Error{Code: CodeIO, Message: err.Error()}
	}
	return AckResult{Target: id, Acknowledged: acks, History: hid}, nil
}

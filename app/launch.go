package app

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"github.com/plugboard/plugboard/backend/runtime"
)

// More error codes, for launches.
const (
	CodeNoTerminal = "no-terminal" // no terminal program; the message carries the command
)

// LaunchResult is a launch opened in the user's terminal.
type LaunchResult struct {
	// Command is the agent's command line exactly as the launch runs it, shell-quoted.
	Command string `json:"command"`
	// Terminal is the command line that opened the terminal, shell-quoted: it runs
	// "plugboard launch", which reads the target again at spawn (R1).
	Terminal string        `json:"terminal"`
	Plan     *runtime.Plan `json:"plan"`
}

// Launch opens the target's agent in the user's terminal ($TERMINAL, else
// x-terminal-emulator). It builds the plan first, so a set that cannot launch (a name
// collision, an unknown target) is refused here with its reasons rather than in a
// terminal window that closes at once. backend "" uses the agent's own.
func (s *Service) Launch(target, backend string) (LaunchResult, error) {
	self, err := os.Executable()
	if err != nil {
		return LaunchResult{}, &Error{Code: CodeIO, Message: "cannot find the plugboard executable: " + err.Error()}
	}
	req := runtime.Request{Home: s.home, PlugboardHome: s.pbHome, Target: target, Backend: backend, Self: self}
	req.FromEnv(s.getenv)
	plan, err := runtime.Build(req)
	var ce *runtime.CollisionError
	switch {
	case errors.As(err, &ce):
		names := make([]string, len(ce.Collisions))
		for i, c := range ce.Collisions {
			names[i] = c.Name
		}
		return LaunchResult{}, &Error{Code: CodeRefused, Message: err.Error(), Names: names, Collisions: ce.Collisions}
	case errors.Is(err, runtime.ErrTarget):
		return LaunchResult{}, &Error{Code: CodeNotFound, Message: err.Error()}
	case err != nil:
		return LaunchResult{}, &Error{Code: CodeIO, Message: err.Error()}
	}
	argv := []string{self, "launch", plan.Target, "--backend", plan.Backend, "--home", s.pbHome}
	res := LaunchResult{Command: runtime.ShellQuote(plan.Argv), Plan: plan}
	term := s.getenv("TERMINAL")
	if term == "" {
		term = "x-terminal-emulator"
	}
	termPath, err := exec.LookPath(term)
	if err != nil {
		return res, &Error{Code: CodeNoTerminal, Message: "no terminal to open (set $TERMINAL to one, e.g. xterm); run this yourself: " + runtime.ShellQuote(argv)}
	}
	full := append([]string{term, "-e"}, argv...)
	res.Terminal = runtime.ShellQuote(full)
	cmd := exec.Command(termPath, full[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives the app
	if err := cmd.Start(); err != nil {
		return res, &Error{Code: CodeNoTerminal, Message: "cannot start " + term + ": " + err.Error()}
	}
	go cmd.Wait() // reap it
	return res, nil
}

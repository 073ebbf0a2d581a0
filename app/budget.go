package app

import (
	"context"
	"os"

	"github.com/plugboard/plugboard/backend/budget"
	"github.com/plugboard/plugboard/backend/mcphealth"
	"github.com/plugboard/plugboard/backend/runtime"
)

// EventMCPProgress is emitted while CheckMCP runs: before each server starts and once
// when all are done ({"done", "total", "next"}; next is "" at the end).
const EventMCPProgress = "mcp:progress"

// BudgetState is what a launch puts in front of the model (plugboard budget --json) and
// the health of each of its MCP servers as last checked.
type BudgetState struct {
	Report  *budget.Report     `json:"report"`
	Servers []mcphealth.Result `json:"servers"`
}

// launchRequest is the request of a launch of target, or of the plugin folder dir (not
// both), as the page's Launch, Try, Budget and CheckMCP build it.
func (s *Service) launchRequest(target, dir, backend string) (runtime.Request, error) {
	if (target == "") == (dir == "") {
		return runtime.Request{}, &Error{Code: CodeInvalid, Message: "name a target or a plugin folder, one of them"}
	}
	self, err := os.Executable()
	if err != nil {
		return runtime.Request{}, &Error{Code: CodeIO, Message: "cannot find the plugboard executable: " + err.Error()}
	}
	req := runtime.Request{Home: s.home, PlugboardHome: s.pbHome, Target: target, Backend: backend, Self: self}
	if dir != "" {
		abs, perr := s.folder("the plugin folder", dir)
		if perr != nil {
			return runtime.Request{}, perr
		}
		req.Dirs = []string{abs}
	}
	req.FromEnv(s.getenv)
	return req, nil
}

// Budget predicts the skill listing and the MCP tools a launch of target (or of the plugin
// folder dir) puts in front of the model, for its backend ("" the agent's own), from a dry
// run: nothing is written and no server is started. The MCP part counts the servers whose
// last CheckMCP is of their config as it is now.
func (s *Service) Budget(target, dir, backend string) (BudgetState, error) {
	req, err := s.launchRequest(target, dir, backend)
	if err != nil {
		return BudgetState{}, err
	}
	req.DryRun = true
	plan, err := runtime.Build(req)
	if err != nil {
		return BudgetState{}, launchError(err)
	}
	servers, err := mcphealth.Known(context.Background(), req)
	if err != nil {
		return BudgetState{}, &Error{Code: CodeIO, Message: err.Error()}
	}
	rep, err := budget.Predict(plan, budget.Options{Home: s.home, PlugboardHome: s.pbHome, Workspace: s.Workspace(),
		Getenv: s.getenv, Servers: servers})
	if err != nil {
		return BudgetState{}, &Error{Code: CodeIO, Message: err.Error()}
	}
	return BudgetState{Report: rep, Servers: servers}, nil
}

// CheckMCP starts each MCP server of a launch of target (or of the plugin folder dir) as
// the launch would and reports what it answers (plugboard mcp check --json's servers),
// emitting mcp:progress as it goes. A server not acknowledged for that launch is not
// started: it is reported with notAcknowledged and the command that acknowledges it.
func (s *Service) CheckMCP(target, dir string) ([]mcphealth.Result, error) {
	req, err := s.launchRequest(target, dir, "")
	if err != nil {
		return nil, err
	}
	o := mcphealth.Options{Home: s.home, PlugboardHome: s.pbHome, Target: target, Dir: dir, Self: req.Self,
		Bins: req.Bins, PIMCPAdapter: req.PIMCPAdapter,
		Progress: func(done, total int, next string) {
			s.emit(EventMCPProgress, map[string]any{"done": done, "total": total, "next": next})
		}}
	rs, err := mcphealth.Check(context.Background(), o)
	if err != nil {
		return nil, launchError(err)
	}
	if rs == nil {
		rs = []mcphealth.Result{}
	}
	return rs, nil
}

package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/settings"
)

// Acknowledgments at launch (A4 kept after the assignment). Assigning a portable or
// Cursor plugin with MCP servers asks for an acknowledgment, but a plugin can gain or change a server
// after it was assigned (a git pull that adds an mcp.json), and a slot can inherit a set
// it never acknowledged. So every launch checks every server it is about to start
// (assign.PluginAcks): a server whose digest (mcpconfig.Digest: what it runs, by names and counts) has
// no acknowledgment for the launched target is left out with a Drop whose reason begins
// "not acknowledged" and whose Ack is what to acknowledge, or, with Request.RequireAck,
// the launch fails with an *AckError listing them. Nothing else of the launch changes:
// its skills still load.
//
// Where the acknowledgments come from: Request.Acked when set; otherwise the SQLite store
// of the Plugboard home (assign.Acknowledged), read only when the set has a server to
// check and never created for it, so a dry run of a home without a database writes none.
// A store that cannot be read acknowledges nothing: a lost acknowledgment asks again, it
// never lets a server start unasked.

// AckedFunc reports whether the server of plugin whose digest is digest is acknowledged
// for target (a target id such as agent:coder).
type AckedFunc func(target, plugin, server, digest string) bool

// ErrNotAcknowledged is what an *AckError wraps.
var ErrNotAcknowledged = errors.New("MCP servers of the launch set are not acknowledged")

// AckError fails a launch with Request.RequireAck when servers are not acknowledged;
// Servers lists them sanitised (names, transport, summary, digest — never a value).
type AckError struct {
	Target  string       `json:"target"`
	Servers []assign.Ack `json:"servers"`
}

func (e *AckError) Error() string {
	parts := make([]string, len(e.Servers))
	for i, s := range e.Servers {
		parts[i] = fmt.Sprintf("%s/%s (%s)", s.Plugin, s.Server, Describe(s))
	}
	return fmt.Sprintf("%s, so nothing was started: %s; acknowledge them with: %s", ErrNotAcknowledged, strings.Join(parts, ", "), ackCommand(e.Target, ""))
}
func (e *AckError) Unwrap() error { return ErrNotAcknowledged }

// NotAcknowledged begins the Reason of every Drop of a server left out for want of an
// acknowledgment.
const NotAcknowledged = "not acknowledged"

// Describe says what a server runs, by names and counts only.
func Describe(a assign.Ack) string {
	s := a.Summary
	if a.Type == "stdio" {
		d := "runs " + orUnknown(s.Executable)
		if s.Args != nil {
			d += fmt.Sprintf(" with %d args", *s.Args)
		}
		if len(s.EnvKeys) > 0 {
			d += ", env keys " + strings.Join(s.EnvKeys, ", ")
		}
		return d
	}
	d := a.Type + " to " + orUnknown(s.Origin)
	if len(s.HeaderNames) > 0 {
		d += ", headers " + strings.Join(s.HeaderNames, ", ")
	}
	return d
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

func ackCommand(target, server string) string {
	if server != "" {
		return "plugboard ack " + target + " " + server
	}
	return "plugboard ack " + target
}

// dropUnacknowledged leaves out of units every server not acknowledged for the
// plan's target (see the top of this file). Build calls it once the set is known to
// launch, before data folders are made and before the fingerprint.
func dropUnacknowledged(req Request, plan *Plan, units []unit) error {
	acked, why := req.Acked, ""
	var need []assign.Ack
	for i := range units {
		u := &units[i]
		if len(u.mcp) == 0 {
			continue
		}
		if acked == nil {
			acked, why = storeAcks(req.PlugboardHome, plan.Target)
		}
		decl := map[string]mcpconfig.Server{}
		for _, s := range u.p.MCP.Servers {
			decl[s.Name] = s
		}
		kept := u.mcp[:0:0]
		for _, s := range u.mcp {
			a := assign.NewAck(u.p.ID, decl[s.Name])
			if acked(plan.Target, a.Plugin, a.Server, a.Digest) {
				kept = append(kept, s)
				continue
			}
			need = append(need, a)
			plan.Dropped = append(plan.Dropped, Drop{Plugin: u.p.ID, What: "server", Name: s.Name, Ack: &a,
				Reason: fmt.Sprintf("%s: this server (%s; digest %s) has not been acknowledged for %s as it is now%s; acknowledge it with: %s, or in the assignment view's Launch card",
					NotAcknowledged, Describe(a), mcpconfig.ShortDigest(a.Digest), plan.Target, why, ackCommand(plan.Target, a.Plugin+"/"+a.Server))})
		}
		u.mcp = kept
	}
	if len(need) > 0 && req.RequireAck {
		return &AckError{Target: plan.Target, Servers: need}
	}
	return nil
}

// storeAcks reads the target's acknowledgments from the store; when it cannot, nothing
// is acknowledged and why says so (for the Drop reasons).
func storeAcks(pbHome, target string) (AckedFunc, string) {
	set, err := assign.Acknowledged(context.Background(), pbHome, target)
	why := ""
	if err != nil {
		why = " (the acknowledgments cannot be read: " + err.Error() + ")"
	}
	return func(t, plugin, server, digest string) bool {
		return t == target && set[assign.AckKey(plugin, server, digest)]
	}, why
}

// AckRef names servers to acknowledge: Plugin alone is every server of that plugin;
// Digest, when given, must be the server's digest now (what the user was shown).
type AckRef struct {
	Plugin string `json:"plugin"`
	Server string `json:"server,omitempty"`
	Digest string `json:"digest,omitempty"`
}

// AckState is one MCP server (portable or Cursor) of a target's launch set and whether it is
// acknowledged for the target as it is now.
type AckState struct {
	assign.Ack
	Acknowledged bool `json:"acknowledged"`
}

// ErrAckChanged is returned by Acknowledge when a server's digest is no longer the one
// the caller names: it changed after it was shown, and the new form must be shown again.
var ErrAckChanged = errors.New("the MCP server changed since it was shown")

// LaunchServers lists the MCP servers a launch of req would start (the valid servers of
// the valid portable and Cursor plugins of its effective set, read afresh), each with
// its acknowledgment state, and the resolved target id. It writes nothing.
func LaunchServers(req Request) (string, []AckState, error) {
	t, dirs, backend, err := resolveTarget(req)
	if err != nil {
		return "", nil, err
	}
	acked := req.Acked
	if acked == nil {
		acked, _ = storeAcks(req.PlugboardHome, t.ID)
	}
	st, _, _ := settings.Read(req.PlugboardHome)
	out := []AckState{}
	for _, u := range readUnits(dirs, req, st, backend, func(Drop) {}) {
		for _, a := range assign.PluginAcks(&u.p) {
			out = append(out, AckState{Ack: a, Acknowledged: acked(t.ID, a.Plugin, a.Server, a.Digest)})
		}
	}
	return t.ID, out, nil
}

// Acknowledge records, for the target of req, the servers of its launch set that refs
// name and that are not acknowledged yet (no refs: all of them), as one history entry
// (assign.Acknowledge). It returns the resolved target, what it acknowledged (empty when
// all were already) and the history entry (0 when none was written). A ref that names
// no server of the set is an *assign.RuleError; a ref whose digest is not the server's
// now wraps ErrAckChanged, and nothing is recorded.
func Acknowledge(req Request, refs []AckRef, actor string) (string, []assign.Ack, int64, error) {
	target, servers, err := LaunchServers(req)
	if err != nil {
		return target, nil, 0, err
	}
	pick := map[int]bool{}
	var unknown, changed []string
	for _, r := range refs {
		found := false
		for i, s := range servers {
			if s.Plugin != r.Plugin || r.Server != "" && s.Server != r.Server {
				continue
			}
			found = true
			if r.Digest != "" && r.Digest != s.Digest {
				changed = append(changed, s.Plugin+"/"+s.Server)
				continue
			}
			pick[i] = true
		}
		if !found {
			name := r.Plugin
			if r.Server != "" {
				name += "/" + r.Server
			}
			unknown = append(unknown, name)
		}
	}
	switch {
	case len(unknown) > 0:
		return target, nil, 0, &assign.RuleError{Code: assign.RuleUnknown, Reason: "no such MCP server in the launch set of " + target + " (only valid servers of portable and Cursor plugins are acknowledged)", Names: unknown}
	case len(changed) > 0:
		return target, nil, 0, fmt.Errorf("%w: %s; look at it again before acknowledging it", ErrAckChanged, strings.Join(changed, ", "))
	}
	acks := []assign.Ack{}
	for i, s := range servers {
		if (len(refs) == 0 || pick[i]) && !s.Acknowledged {
			acks = append(acks, s.Ack)
		}
	}
	if len(acks) == 0 {
		return target, acks, 0, nil
	}
	id, _, err := assign.Acknowledge(context.Background(), req.PlugboardHome, target, acks, actor)
	return target, acks, id, err
}

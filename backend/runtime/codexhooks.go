package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Skill activity of a Codex launch (R8). Codex reads a skill by running a command that
// reads its SKILL.md (its Bash tool), so the launch gives Codex a PreToolUse hook on
// Bash that runs "plugboard activity record --codex INDEX" with the hook's JSON on
// stdin; the recorder keeps only the names of the projected skills whose SKILL.md the
// command names (backend/activity, codex.go).
//
// Codex runs a hook only once its exact definition is trusted: the trust is a
// [hooks.state."<config>:<event>:<group>:<handler>"] trusted_hash entry of the config
// that holds the hook, the hash being Codex's own (the user reviews hooks in /hooks).
// The hook is Plugboard's own, in a config.toml Plugboard writes for the launch, so the
// launch trusts it there, with the hash Codex itself reports for it (codex app-server's
// hooks/list, asked once per launch home and remembered in codexTrustFile); Plugboard
// never computes the hash. The user's own hooks are carried over with the trust the
// user gave them (their keys moved to the launch's config), and no other hook is
// trusted on the user's behalf.

// SkillsNamedIn lists the skills whose SKILL.md a command names (files: each skill's
// SKILL.md where the agent reads it), in the order the command first names them: how a
// Codex command reading a skill is told, by its hook's recorder and by a try.
func SkillsNamedIn(command string, files map[string]string) []string {
	type at struct {
		name string
		i    int
	}
	var found []at
	for name, f := range files {
		if i := strings.Index(command, f); f != "" && i >= 0 {
			found = append(found, at{name, i})
		}
	}
	sort.Slice(found, func(a, b int) bool {
		if found[a].i != found[b].i {
			return found[a].i < found[b].i
		}
		return found[a].name < found[b].name
	})
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	return out
}

// codexTrustFile remembers, in a Codex launch home, the trust Codex reported for the
// launch's hook.
const codexTrustFile = "plugboard-hook-trust.json"

// codexHookCommand is the command of the launch's hook, for the index of its projection.
func codexHookCommand(self, index string) string {
	return ShellQuote([]string{self, "activity", "record", "--codex", index})
}

// codexActivityHook is the launch's PreToolUse matcher group.
func codexActivityHook(self, index string) map[string]any {
	return map[string]any{"matcher": "^Bash$", "hooks": []map[string]any{{
		"type": "command", "command": codexHookCommand(self, index), "timeout": activityHookTimeout}}}
}

// mergeCodexHooks puts the launch's hooks after the user's own in settings (so the user's
// keep their places and so their keys) and moves the user's trust entries from the
// user's config to the launch's.
func mergeCodexHooks(settings, own map[string]any, userConfig, config string) {
	hooks, _ := settings["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	if state, ok := hooks["state"].(map[string]any); ok {
		moved := map[string]any{}
		for k, v := range state {
			if rest, ok := strings.CutPrefix(k, userConfig+":"); ok {
				moved[config+":"+rest] = v
			}
		}
		hooks["state"] = moved
	}
	for event, groups := range own {
		list, _ := groups.([]map[string]any)
		switch have := hooks[event].(type) {
		case []map[string]any:
			hooks[event] = append(have, list...)
		default:
			hooks[event] = list
		}
	}
	if len(hooks) > 0 {
		settings["hooks"] = hooks
	}
}

func writeCodexConfig(path string, settings map[string]any) error {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(settings); err != nil {
		return err
	}
	return writePrivate(path, b.Bytes())
}

// codexTrust is what codexTrustFile holds: the hook's command, its key and Codex's hash.
type codexTrust struct {
	Command, Key, Hash string
}

// trustCodexHook trusts the launch's own hook in the launch home's config.toml, with
// the hash Codex reports for it, and says why it could not ("" when it did).
func trustCodexHook(plan *Plan, req Request, home string, settings map[string]any) string {
	config := filepath.Join(home, "config.toml")
	command := codexHookCommand(req.Self, filepath.Join(plan.Projection, ActivityIndexFile))
	var t codexTrust
	if data, err := os.ReadFile(filepath.Join(home, codexTrustFile)); err != nil || json.Unmarshal(data, &t) != nil || t.Command != command {
		key, hash, err := codexHookHash(binOr(req.Bin, Codex), home, command, req)
		if err != nil {
			return err.Error()
		}
		t = codexTrust{Command: command, Key: key, Hash: hash}
		if err := writePrivate(filepath.Join(home, codexTrustFile), mustJSON(t)); err != nil {
			return err.Error()
		}
	}
	hooks := settings["hooks"].(map[string]any)
	state, _ := hooks["state"].(map[string]any)
	if state == nil {
		state = map[string]any{}
	}
	state[t.Key] = map[string]any{"trusted_hash": t.Hash}
	hooks["state"] = state
	if err := writeCodexConfig(config, settings); err != nil {
		return err.Error()
	}
	return ""
}

// codexHookTimeout bounds the app-server run that reports the hook's hash.
const codexHookTimeout = 20 * time.Second

// codexHookHash asks Codex (its app-server, over stdio, with the launch's home) for the
// key and hash of the hook whose command is command.
func codexHookHash(bin, home, command string, req Request) (key, hash string, err error) {
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", "", fmt.Errorf("%s cannot be started to learn the hook's hash: %w", bin, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), codexHookTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "app-server")
	cmd.Env = append(os.Environ(), CodexHomeEnv+"="+home, "HOME="+req.Home)
	cmd.WaitDelay = time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", "", err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", "", err
	}
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"plugboard","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{}}`,
	} {
		if _, err := in.Write([]byte(m + "\n")); err != nil {
			return "", "", err
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []struct {
						Key, Command, CurrentHash string
					}
				}
			}
			Error *struct{ Message string }
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		if msg.Error != nil {
			return "", "", errors.New("codex app-server answered hooks/list with an error: " + msg.Error.Message)
		}
		for _, d := range msg.Result.Data {
			for _, h := range d.Hooks {
				if h.Command == command && h.CurrentHash != "" {
					return h.Key, h.CurrentHash, nil
				}
			}
		}
		return "", "", errors.New("codex does not list the launch's hook")
	}
	if ctx.Err() != nil {
		return "", "", fmt.Errorf("codex app-server did not list its hooks within %v", codexHookTimeout)
	}
	return "", "", errors.New("codex app-server ended before it listed its hooks")
}

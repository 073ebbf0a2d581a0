package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/testhome"
)

// codexListing matches one entry of Codex's skill listing: "- name: description (file:
// rN/path)".
var codexListing = regexp.MustCompile(`(?m)^- ([^:\n]+): .*\(file: (r\d+)/([^)]+)\)$`)

// codexListed is the skill names of Codex's listing in a request's developer messages.
func codexListed(r *scriptmodel.Request) []string {
	text := r.Texts()
	i := strings.Index(text, "<skills_instructions>")
	j := strings.Index(text, "</skills_instructions>")
	if i < 0 || j < i {
		return nil
	}
	var out []string
	for _, m := range codexListing.FindAllStringSubmatch(text[i:j], -1) {
		out = append(out, m[1])
	}
	return out
}

// The real Codex, started by the real plugboard launch, runs a whole turn against the
// scripted model (a model provider of the user's own config.toml, Responses API, on
// loopback): its skill listing is exactly the projected skills (none of the user's
// ~/.agents/skills or ~/.codex/skills, none of its bundled ones), it reads each
// SKILL.md from its launch home and gets the body, and it calls each projected MCP tool
// (mcp__<server>__<tool>), which reaches the real servers where the plan put them; the
// user's own MCP server is not offered. The launch's Codex home carries the user's
// provider settings, drops a secret-named one, and links the user's auth.json.
func TestCodexRunsTheProjectionEndToEnd(t *testing.T) {
	codex := client(t, ".bin/codex")
	calls := &toolCalls{client: "codex"}
	names := []string{e2eKitSkill, e2eCurSk, e2eOldSkill}
	var home string
	script := func(h e2eHome, plan runtime.Plan) []scriptmodel.Step {
		writeUserOwn(t, h)
		testhome.WriteFile(t, filepath.Join(h.root, ".codex", "skills", "codex-own-skill", "SKILL.md"), "---\nname: codex-own-skill\ndescription: The user's Codex skill.\n---\nbody\n")
		testhome.WriteFile(t, filepath.Join(h.root, ".codex", "auth.json"), `{"OPENAI_API_KEY": null}`+"\n")
		// The user's own settings: a server, another provider with a bearer token, and
		// what an offline user turns off (the ChatGPT apps server and the analytics
		// flush, each of which Codex retries against the network for about 30 s).
		testhome.WriteFile(t, filepath.Join(h.root, ".codex", "config.toml"), fmt.Sprintf(`[mcp_servers.%s]
command = %q
env = { E2E_ROLE = "mcp-stdio", E2E_SERVER = %q, E2E_RECORD = %q }

[features]
apps = false

[analytics]
enabled = false

[model_providers.other]
name = "Another provider"
base_url = "http://127.0.0.1:9/v1"
experimental_bearer_token = "not-to-be-copied"
`, userServer, filepath.Join(h.kit, "bin", "serve"), userServer, filepath.Join(h.root, "user-calls.jsonl")))
		home = runtime.StateHome(h.pb, runtime.Codex, plan.Fingerprint)
		var steps []scriptmodel.Step
		for _, name := range names {
			steps = append(steps, func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
				return calls.use(r, "skill:"+name, "exec_command", map[string]string{"cmd": "cat " + filepath.Join(home, "skills", name, "SKILL.md")})
			})
		}
		use := func(server, tool string, args map[string]string) scriptmodel.Step {
			return func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
				return calls.use(r, server, "mcp__"+server+"__"+tool, args)
			}
		}
		steps = append(steps, use(e2eStdio, e2eRecordTool, map[string]string{"note": "codex"}),
			use(e2eRemote, e2eLookupTool, map[string]string{"query": "codex"}),
			use(e2eCursorStdio, e2eRecordTool, map[string]string{"note": "codex"}))
		return append(steps, scriptmodel.Say("done"))
	}
	r := launchE2E(t, "e2e-codex", codex, []string{"PLUGBOARD_CODEX_BIN=" + codex}, script, func(*scriptmodel.Server) []string {
		// No sandbox: Codex's own (bubblewrap) cannot start its helper in the test's
		// network namespace, and what it confines is not what this test checks.
		return []string{"exec", "--skip-git-repo-check", "-s", "danger-full-access", "use every skill and tool"}
	})
	if want := []string{e2eKitSkill, e2eCurSk, e2eOldSkill}; !slices.Equal(r.plan.Skills, want) {
		t.Fatalf("plan skills %v, want %v", r.plan.Skills, want)
	}
	if strings.TrimSpace(r.stdout) != "done" {
		t.Errorf("codex printed %q, want the script's last text", r.stdout)
	}

	first := r.model.Main()[0]
	if listed := codexListed(first); !slices.Equal(slices.Sorted(slices.Values(listed)), r.plan.Skills) {
		t.Errorf("codex listed skills %v; want exactly the plan's %v", listed, r.plan.Skills)
	}
	checkServersOffered(t, r, func(n string) string {
		if rest, ok := strings.CutPrefix(n, "mcp__"); ok {
			return strings.Split(rest, "__")[0]
		}
		return ""
	})
	r.checkMCP(t, "codex", skillAnswers(t, r, calls))
	checkToolActivity(t, r.h, "agent:e2e-codex", r.plan.Skills)

	// The launch's Codex home.
	var cfg map[string]any
	if _, err := toml.DecodeFile(filepath.Join(home, "config.toml"), &cfg); err != nil {
		t.Fatalf("the launch's Codex config: %v", err)
	}
	providers, _ := cfg["model_providers"].(map[string]any)
	other, _ := providers["other"].(map[string]any)
	if cfg["model_provider"] != scriptmodel.CodexProvider || providers[scriptmodel.CodexProvider] == nil || other["base_url"] == nil || other["experimental_bearer_token"] != nil {
		t.Errorf("the launch's Codex config carries %v", cfg)
	}
	if mcp, _ := cfg["mcp_servers"].(map[string]any); mcp[userServer] != nil {
		t.Errorf("the launch's Codex config has the user's own server: %v", mcp)
	}
	if l, err := os.Readlink(filepath.Join(home, "auth.json")); err != nil || l != filepath.Join(r.h.root, ".codex", "auth.json") {
		t.Errorf("the launch's auth.json links to %q (%v); want the user's", l, err)
	}
}

package scriptmodel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// NotAKey is the API key the helpers hand the clients: the server ignores keys, and a
// recognisable dummy shows that no real one was used.
const NotAKey = "scriptmodel-not-a-key"

// ClaudeEnv is the environment (KEY=VALUE) that points Claude Code at the server with
// no account: its base URL, a dummy key, and no updater, telemetry, error reporting or
// other non-essential traffic.
func (s *Server) ClaudeEnv() []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + s.URL,
		"ANTHROPIC_API_KEY=" + NotAKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_NON_ESSENTIAL_MODEL_CALLS=1",
	}
}

// PI's provider and model names in the models.json WritePIModels writes.
const (
	PIProvider = "scriptmodel"
	PIModel    = "scripted"
)

// WritePIModels writes home/.pi/agent/models.json with one custom provider, PIProvider,
// that speaks the Anthropic Messages API to the server (PI 0.73's docs/models.md).
// It replaces any models.json there: home is meant to be a private test home.
func (s *Server) WritePIModels(home string) error {
	doc := map[string]any{"providers": map[string]any{PIProvider: map[string]any{
		"baseUrl": s.URL,
		"api":     "anthropic-messages",
		"apiKey":  NotAKey,
		"models":  []any{map[string]any{"id": PIModel, "name": "Scripted model", "contextWindow": 200000, "maxTokens": 8192}},
	}}}
	b, _ := json.MarshalIndent(doc, "", "  ")
	dir := filepath.Join(home, ".pi", "agent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "models.json"), append(b, '\n'), 0o600)
}

// PIArgs select the provider WritePIModels wrote.
func PIArgs() []string { return []string{"--provider", PIProvider, "--model", PIModel} }

// CopilotModel is the model name CopilotEnv gives Copilot CLI.
const CopilotModel = "claude-sonnet-4.5"

// CopilotEnv is the environment (KEY=VALUE) that points GitHub Copilot CLI at the server
// with no account: offline mode (no GitHub sign-in, telemetry, GitHub MCP server or
// update) and its own-provider settings, an Anthropic provider at the server's URL
// with a dummy key (Copilot CLI's `copilot help environment`).
func (s *Server) CopilotEnv() []string {
	return []string{
		"COPILOT_OFFLINE=true",
		"COPILOT_PROVIDER_BASE_URL=" + s.URL,
		"COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_API_KEY=" + NotAKey,
		"COPILOT_MODEL=" + CopilotModel,
		"COPILOT_AUTO_UPDATE=false",
	}
}

// Codex's provider and model names, and the variable its key is read from, in the
// settings CodexConfig writes.
const (
	CodexProvider = "scriptmodel"
	CodexModel    = "scripted"
	CodexKeyEnv   = "SCRIPTMODEL_API_KEY"
)

// CodexConfig is the config.toml text that points Codex at the server: a model provider
// speaking the Responses API at URL/v1, its key read from CodexKeyEnv (CodexEnv sets the
// dummy), no retries (a failed step is an error, not the next step).
func (s *Server) CodexConfig() string {
	return fmt.Sprintf(`model = %q
model_provider = %q

[model_providers.%s]
name = "Scripted model"
base_url = %q
wire_api = "responses"
env_key = %q
request_max_retries = 0
stream_max_retries = 0
`, CodexModel, CodexProvider, CodexProvider, s.URL+"/v1", CodexKeyEnv)
}

// CodexEnv is the environment (KEY=VALUE) a Codex run against the server needs beside
// CodexConfig: the dummy key.
func (s *Server) CodexEnv() []string { return []string{CodexKeyEnv + "=" + NotAKey} }

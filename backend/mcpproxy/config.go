package mcpproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/mcptap"
	"golang.org/x/net/http/httpguts"
)

// Transport types, as Agent Plugins names them.
const (
	TypeStreamableHTTP = "streamable-http"
	TypeSSE            = "sse"
)

// maxConfigSize caps the config file: a URL and a few headers need far less, and the cap
// keeps a wrong --config (a log, a device) from being read whole.
const maxConfigSize = 64 << 10

// ErrBadConfig marks a config file refused for its mode, kind, size or content (as opposed
// to one that could not be read at all).
var ErrBadConfig = errors.New("refused")

// Config is the private file the launcher writes for one remote server.
type Config struct {
	Type    string            `json:"type"` // TypeStreamableHTTP or TypeSSE
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	// EnvRefs: the url and header values hold environment references (${env:NAME},
	// ${NAME}; a Cursor server), resolved from the proxy's environment when it reads the
	// config, so no value sits in the file.
	EnvRefs bool `json:"envRefs,omitempty"`
	// Activity names the server for the records of its tool calls (backend/mcptap); a
	// file without it (an older launch's) is relayed without counting.
	Activity *mcptap.Info `json:"activity,omitempty"`
}

// ReadConfig reads and checks the file at path. It refuses a file that is not a regular
// file (a symlink included), that group or others may read or write (it holds header
// values), that is larger than 64 KiB, or whose content is not one Config: the checks
// of jsonfile.ReadPrivate, which plugboard mcp-stdio makes on its config too. Errors
// name the file and the fix, never a header value.
func ReadConfig(path string) (Config, error) {
	refuse := func(format string, a ...any) (Config, error) {
		return Config{}, fmt.Errorf("config %s: %w: "+format, append([]any{path, ErrBadConfig}, a...)...)
	}
	data, err := jsonfile.ReadPrivate(path, jsonfile.Private{Max: maxConfigSize, Holds: "header values",
		Fix: "point --config at the file the launcher wrote"})
	var pe *jsonfile.PrivateError
	switch {
	case errors.As(err, &pe):
		return refuse("%s", pe.Reason)
	case err != nil:
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	cfg, err := parseConfig(data, os.LookupEnv)
	if err != nil {
		return refuse("%v", err)
	}
	return cfg, nil
}

// parseConfig decodes exactly one Config, resolves its environment references with lookup
// when it has them, and checks it.
func parseConfig(data []byte, lookup func(string) (string, bool)) (Config, error) {
	var cfg Config
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, fmt.Errorf(`not a JSON object {"type", "url", "headers"}: %v`, err)
	}
	if dec.Decode(new(json.RawMessage)) != io.EOF {
		return Config{}, errors.New("data after the JSON object; the file must hold one object")
	}
	if cfg.EnvRefs {
		cfg.URL = mcpconfig.ExpandEnvRefs(cfg.URL, lookup)
		for k, v := range cfg.Headers {
			cfg.Headers[k] = mcpconfig.ExpandEnvRefs(v, lookup)
		}
	}
	return cfg, cfg.check()
}

// check reports every problem of cfg, naming header names but never their values.
func (cfg Config) check() error {
	var problems []string
	if cfg.Type != TypeStreamableHTTP && cfg.Type != TypeSSE {
		problems = append(problems, fmt.Sprintf("type %q is not %q or %q", cfg.Type, TypeStreamableHTTP, TypeSSE))
	}
	if _, err := parseURL(cfg.URL); err != nil {
		problems = append(problems, err.Error())
	}
	seen := make(map[string]string, len(cfg.Headers))
	for _, name := range sortedNames(cfg.Headers) {
		switch canon := http.CanonicalHeaderKey(name); {
		case !httpguts.ValidHeaderFieldName(name):
			problems = append(problems, "a header name is not a valid HTTP field name (letters, digits and !#$%&'*+-.^_`|~ only)")
		case !httpguts.ValidHeaderFieldValue(cfg.Headers[name]):
			problems = append(problems, fmt.Sprintf("the value of header %q has a character not allowed in HTTP (CR, LF or NUL)", name))
		case seen[canon] != "":
			problems = append(problems, fmt.Sprintf("headers %q and %q are the same header (names ignore case); keep one", seen[canon], name))
		default:
			seen[canon] = name
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// parseURL accepts an absolute http or https URL with a host. Its messages never quote
// the URL: its path or query may carry a token.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, errors.New("url is not a valid URL; write an absolute https:// URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("url is not an absolute http:// or https:// URL")
	case u.Hostname() == "":
		return nil, errors.New("url has no host; write it as https://host/path")
	}
	return u, nil
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

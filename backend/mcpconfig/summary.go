package mcpconfig

import (
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// Summary is what may be shown about a server: names and counts, never a value of env or
// headers, never an argument (not even one written into command), never the path, query
// or user information of the URL, never a header name that is not a valid field name
// (U2).
type Summary struct {
	// stdio
	Executable string   `json:"executable,omitempty"` // base name of command's first word
	Args       *int     `json:"args,omitempty"`       // count (pointer so 0 shows for stdio)
	EnvKeys    []string `json:"envKeys,omitempty"`    // sorted names
	// remote
	Origin      string   `json:"origin,omitempty"`      // scheme://host[:port] of an http(s) URL
	HeaderNames []string `json:"headerNames,omitempty"` // the valid ones, sorted, as written
}

// summariseStdio fills the stdio half of a summary from whatever fields are usable.
func summariseStdio(obj map[string]any) Summary {
	var s Summary
	if cmd, ok := obj["command"].(string); ok {
		s.Executable = executable(cmd)
	}
	switch a := obj["args"].(type) {
	case nil:
		n := 0
		s.Args = &n
	case []any:
		n := len(a)
		s.Args = &n
	}
	if env, ok := obj["env"].(map[string]any); ok {
		for _, k := range sortedKeys(env) {
			if !strings.ContainsAny(k, "=\x00") { // not a name but a KEY=value written as a key
				s.EnvKeys = append(s.EnvKeys, k)
			}
		}
	}
	return s
}

// summariseRemote fills the remote half of a summary.
func summariseRemote(obj map[string]any) Summary {
	var s Summary
	if raw, ok := obj["url"].(string); ok {
		s.Origin = origin(raw)
	}
	if h, ok := obj["headers"].(map[string]any); ok {
		for _, k := range sortedKeys(h) {
			if httpguts.ValidHeaderFieldName(k) {
				s.HeaderNames = append(s.HeaderNames, k)
			}
		}
	}
	return s
}

// executable is what a summary shows of a command: the base name of its first
// white-space-separated word. A command written as a command line ("npx -y pkg --token
// abc", as the Claude / Cursor shape allows and a broken portable entry has) carries its
// arguments, and an argument may be a token; only the program is shown ("npx").
func executable(cmd string) string {
	words := strings.Fields(cmd)
	for len(words) > 0 && strings.Contains(words[0], "=") {
		words = words[1:] // a shell's VAR=value before the program holds a value
	}
	if len(words) == 0 {
		return ""
	}
	base := path.Base(strings.TrimRight(words[0], "/"))
	if i := strings.LastIndexByte(base, '\\'); i >= 0 {
		base = base[i+1:] // a Windows path, as another client's file may hold
	}
	if base == "." || base == "/" {
		return ""
	}
	return base
}

// summarise picks the halves by transport; an unknown transport gets whichever halves its
// fields allow.
func summarise(obj map[string]any, stdio, remote bool) Summary {
	var s Summary
	if stdio {
		s = summariseStdio(obj)
	}
	if remote {
		r := summariseRemote(obj)
		s.Origin, s.HeaderNames = r.Origin, r.HeaderNames
	}
	return s
}

// origin returns scheme://host[:port] of an absolute http or https URL, or "" when raw
// is none: another scheme is not shown (a "scheme" may be where a mistyped token went).
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return ""
	}
	return scheme + "://" + u.Host
}

// fillDeclaration keeps the well-typed fields of the entry for the runtime.
func fillDeclaration(s *Server, obj map[string]any) {
	s.Command, _ = obj["command"].(string)
	s.Cwd, _ = obj["cwd"].(string)
	s.URL, _ = obj["url"].(string)
	s.EnvFile, _ = obj["envFile"].(string)
	_, s.Auth = obj["auth"]
	if a, ok := obj["args"].([]any); ok {
		s.Args = make([]string, 0, len(a))
		for _, v := range a {
			if str, ok := v.(string); ok {
				s.Args = append(s.Args, str)
			}
		}
	}
	s.Env = stringMap(obj["env"])
	s.Headers = stringMap(obj["headers"])
}

func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if str, ok := v.(string); ok {
			out[k] = str
		}
	}
	return out
}

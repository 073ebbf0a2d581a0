package mcpconfig

import (
	"net/url"
	"path"
	"strings"
)

// Summary is what may be shown about a server: names and counts, never a value of env or
// headers, never the path, query or user information of the URL (U2).
type Summary struct {
	// stdio
	Executable string   `json:"executable,omitempty"` // basename of command
	Args       *int     `json:"args,omitempty"`       // count (pointer so 0 shows for stdio)
	EnvKeys    []string `json:"envKeys,omitempty"`    // sorted names
	// remote
	Origin      string   `json:"origin,omitempty"`      // scheme://host[:port]
	HeaderNames []string `json:"headerNames,omitempty"` // sorted, as written
}

// summariseStdio fills the stdio half of a summary from whatever fields are usable.
func summariseStdio(obj map[string]any) Summary {
	var s Summary
	if cmd, ok := obj["command"].(string); ok && cmd != "" {
		s.Executable = path.Base(strings.TrimRight(cmd, "/"))
		if s.Executable == "." || s.Executable == "/" {
			s.Executable = ""
		}
	}
	switch a := obj["args"].(type) {
	case nil:
		n := 0
		s.Args = &n
	case []any:
		n := len(a)
		s.Args = &n
	}
	if env, ok := obj["env"].(map[string]any); ok && len(env) > 0 {
		s.EnvKeys = sortedKeys(env)
	}
	return s
}

// summariseRemote fills the remote half of a summary.
func summariseRemote(obj map[string]any) Summary {
	var s Summary
	if raw, ok := obj["url"].(string); ok {
		s.Origin = origin(raw)
	}
	if h, ok := obj["headers"].(map[string]any); ok && len(h) > 0 {
		s.HeaderNames = sortedKeys(h)
	}
	return s
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

// origin returns scheme://host[:port] of an absolute URL, or "" when raw has none.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + u.Host
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

package mcpconfig

import (
	"errors"
	"io/fs"
	"os"
	"strconv"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/jsondoc"
)

// claudeFields are the members a Claude Code / Cursor server entry may have, by transport.
// envFile is Cursor's; it is accepted and not read.
var claudeFields = map[bool]map[string]bool{
	true:  {"type": true, "command": true, "args": true, "env": true, "cwd": true, "envFile": true},
	false: {"type": true, "url": true, "headers": true},
}

// claudeTypes are the "type" values of the shape; true marks stdio.
var claudeTypes = map[string]bool{"stdio": true, "http": false, "streamable-http": false, "sse": false}

// LoadClaude reads a file of the Claude Code / Cursor shape ({"mcpServers": {name: {...}}})
// at path, shown as shownPath. It returns nil when the file is absent. Containment of the
// file itself (for a Cursor plugin) is the caller's job.
func LoadClaude(path, shownPath string) *Config {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	data, err := capread.ReadFile(path, capread.MCPMax)
	if err != nil {
		c := readProblem(shownPath, err)
		return &c
	}
	c := ParseClaude(data, shownPath)
	return &c
}

// ParseClaude judges content of the Claude Code / Cursor shape. The shape is another
// client's native format, so it is read leniently: unknown members are warnings, a command
// may be any string (the client runs it as written), and only what would stop a server
// from starting at all (no command or url, a url that does not parse, a field of the wrong
// JSON type, an invalid header) makes a server invalid.
func ParseClaude(data []byte, shownPath string) Config {
	r := newReport(data, shownPath)
	c := Config{Path: shownPath}
	top, ok := r.topObject(&c.Issues)
	if !ok {
		return finishConfig(c)
	}
	for _, k := range sortedKeys(top) {
		if k != "mcpServers" {
			r.warnf(&c.Issues, CodeClaudeUnknownField, jsondoc.Pointer(k), "%s: the top-level member %s is not read; only \"mcpServers\" is", r.name, q(k))
		}
	}
	fileDups, serverDups := splitDups(r.index.dups)
	r.fileDups(&c.Issues, fileDups)
	raw, ok := top["mcpServers"]
	if !ok {
		r.warnf(&c.Issues, CodeServersMissing, "", "%s has no \"mcpServers\" member, so it defines no servers", r.name)
		return finishConfig(c)
	}
	servers, ok := raw.(map[string]any)
	if !ok {
		r.errorf(&c.Issues, CodeServersNotObject, "/mcpServers", "\"mcpServers\" is %s; it must be an object whose members are servers", jsondoc.Kind(raw))
		return finishConfig(c)
	}
	c.Servers = make([]Server, 0, len(servers))
	for _, name := range sortedKeys(servers) {
		s := r.claudeServer(name, servers[name])
		r.serverDups(&s, serverDups[name])
		c.Servers = append(c.Servers, finishServer(s))
	}
	return finishConfig(c)
}

// claudeServer judges one entry of the Claude / Cursor shape.
func (r report) claudeServer(name string, raw any) Server {
	s := Server{Name: name}
	ptr := jsondoc.Pointer("mcpServers", name)
	obj, ok := raw.(map[string]any)
	if !ok {
		r.errorf(&s.Issues, CodeServerNotObject, ptr, "server %s is %s; it must be an object", q(name), jsondoc.Kind(raw))
		return s
	}
	fillDeclaration(&s, obj)
	typ, stdio := r.claudeType(&s, obj, ptr)
	s.Type = typ
	if typ == "" {
		_, hasCmd := obj["command"]
		_, hasURL := obj["url"]
		s.Summary = summarise(obj, hasCmd, hasURL)
		return s
	}
	s.Summary = summarise(obj, stdio, !stdio)
	for _, k := range sortedKeys(obj) {
		if !claudeFields[stdio][k] {
			r.warnf(&s.Issues, CodeClaudeUnknownField, ptr+jsondoc.Pointer(k), "server %s: %s is not read for a server of type %s", q(name), q(k), q(typ))
		}
	}
	required := "url"
	if stdio {
		required = "command"
	}
	if _, ok := obj[required]; !ok {
		r.errorf(&s.Issues, CodeServerRequired, ptr, "server %s: a server of type %s needs %s", q(name), q(typ), q(required))
	}
	r.claudeKinds(&s, obj, claudeFields[stdio], ptr)
	if !stdio {
		rc := remoteCheck{report: r}
		rc.url(&s, obj, ptr)
		rc.headers(&s, obj, ptr)
	}
	return s
}

// claudeType returns the transport ("" after reporting why there is none) and whether it
// is stdio. Without "type", a command means stdio and a url means HTTP, as Cursor infers.
func (r report) claudeType(s *Server, obj map[string]any, ptr string) (string, bool) {
	if raw, ok := obj["type"]; ok {
		typ, isStr := raw.(string)
		stdio, known := claudeTypes[typ]
		if !isStr || !known {
			r.errorf(&s.Issues, CodeServerType, ptr+"/type", "server %s: \"type\" must be one of \"stdio\", \"http\", \"streamable-http\" or \"sse\"", q(s.Name))
			return "", false
		}
		return typ, stdio
	}
	_, hasCmd := obj["command"]
	_, hasURL := obj["url"]
	switch {
	case hasCmd && hasURL:
		r.errorf(&s.Issues, CodeClaudeTransport, ptr, "server %s has both \"command\" and \"url\"; set \"type\" or remove one", q(s.Name))
	case hasCmd:
		return "stdio", true
	case hasURL:
		return "http", false
	default:
		r.errorf(&s.Issues, CodeClaudeTransport, ptr, "server %s has neither \"command\" nor \"url\"; add one", q(s.Name))
	}
	return "", false
}

// claudeKinds checks the JSON type of each known field (the schema's job in the portable
// format).
func (r report) claudeKinds(s *Server, obj map[string]any, known map[string]bool, ptr string) {
	for _, k := range sortedKeys(obj) {
		if !known[k] || k == "type" {
			continue
		}
		v := obj[k]
		kp := ptr + jsondoc.Pointer(k)
		switch want := fieldKinds[k]; want {
		case "a string":
			if str, ok := v.(string); !ok || (str == "" && (k == "command" || k == "url")) {
				r.errorf(&s.Issues, CodeServerSchema, kp, "server %s: %s must be a non-empty string, not %s", q(s.Name), q(k), describe(v))
			}
		case "an array of strings":
			arr, ok := v.([]any)
			if !ok {
				r.errorf(&s.Issues, CodeServerSchema, kp, "server %s: %s must be %s, not %s", q(s.Name), q(k), want, jsondoc.Kind(v))
			}
			for i, e := range arr {
				if _, ok := e.(string); !ok {
					r.errorf(&s.Issues, CodeServerSchema, kp+jsondoc.Pointer(strconv.Itoa(i)), "server %s: %s[%d] must be a string, not %s", q(s.Name), k, i, jsondoc.Kind(e))
				}
			}
		case "an object of strings":
			m, ok := v.(map[string]any)
			if !ok {
				r.errorf(&s.Issues, CodeServerSchema, kp, "server %s: %s must be %s, not %s", q(s.Name), q(k), want, jsondoc.Kind(v))
			}
			for _, mk := range sortedKeys(m) {
				if _, ok := m[mk].(string); !ok {
					at, what := kp+jsondoc.Pointer(mk), "env "+q(mk)
					if k == "headers" {
						at, what = headerPointer(ptr, mk), headerLabel(mk)
					}
					r.errorf(&s.Issues, CodeServerSchema, at, "server %s: the value of %s must be a string, not %s",
						q(s.Name), what, jsondoc.Kind(m[mk]))
				}
			}
		}
	}
}

// describe is jsonType, saying "an empty string" for "".
func describe(v any) string {
	if v == "" {
		return "an empty string"
	}
	return jsondoc.Kind(v)
}

package mcpconfig

import (
	"errors"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// Placeholders of spec §9.2.
const (
	rootVar = "${PLUGIN_ROOT}"
	dataVar = "${PLUGIN_DATA}"
)

// stdio checks the semantic rules of a stdio entry that the schema cannot express. Each
// check looks only at a field of the right JSON type; a wrong type is a schema leaf.
func (p portable) stdio(s *Server, obj map[string]any, ptr string) {
	if cmd, ok := obj["command"].(string); ok && cmd != "" {
		p.command(s, cmd, ptr+"/command")
	}
	if cwd, ok := obj["cwd"].(string); ok {
		p.cwd(s, cwd, ptr+"/cwd")
	}
	if env, ok := obj["env"].(map[string]any); ok {
		p.env(s, env, ptr+"/env")
	}
	if args, ok := obj["args"].([]any); ok {
		for i, a := range args {
			if str, ok := a.(string); ok && strings.IndexByte(str, 0) >= 0 {
				p.errorf(&s.Issues, CodeNULByte, ptr+jsondoc.Pointer("args", strconv.Itoa(i)),
					"server %s: args[%d] contains a NUL byte, which no process argument can carry", q(s.Name), i)
			}
		}
	}
}

// command checks the single executable token (spec §7.2.1, §4.1): a bare name, or a "./"
// path that stays inside the plugin root. Messages never quote the command: written as a
// command line, it carries its arguments, and an argument may be a token.
func (p portable) command(s *Server, cmd, ptr string) {
	bad := func(rule string) {
		p.errorf(&s.Issues, CodeCommandToken, ptr, "server %s: \"command\" %s", q(s.Name), rule)
	}
	isPath := strings.HasPrefix(cmd, "./")
	switch {
	case strings.ContainsFunc(cmd, unicode.IsControl):
		bad("contains a control character; write one executable name or \"./\" path")
	case !isPath && strings.ContainsFunc(cmd, unicode.IsSpace):
		bad("is a command line, not one executable token; put the program in \"command\" and each argument in \"args\"")
	case strings.Contains(cmd, `\`):
		bad("contains a backslash; write a bare name or a \"./\" path with forward slashes")
	case cmd == "." || cmd == "..":
		bad("is \".\" or \"..\", a folder, not an executable; write a bare name or a \"./\" path to a file in the plugin")
	case strings.HasPrefix(cmd, "/") || strings.HasPrefix(cmd, "~/") || len(cmd) > 1 && cmd[1] == ':':
		bad("is an absolute path; bundle the executable and write a \"./\" path, or write a bare name found on PATH")
	case strings.HasPrefix(cmd, "../"):
		bad("starts with \"../\" and so leaves the plugin root; a path must start with \"./\" and stay inside the plugin")
	case !isPath && strings.Contains(cmd, "/"):
		bad("is a path without the \"./\" prefix; start it with \"./\" (a file inside the plugin), or write a bare name found on PATH")
	case isPath:
		p.commandPath(s, cmd, ptr)
	}
}

// commandPath checks a "./" command: it names a file, not a folder, inside the root.
func (p portable) commandPath(s *Server, cmd, ptr string) {
	if strings.HasSuffix(cmd, "/") || path.Clean(cmd) == "." {
		p.errorf(&s.Issues, CodeCommandToken, ptr, "server %s: \"command\" names a folder; name the executable file", q(s.Name))
		return
	}
	if strings.ContainsFunc(cmd, unicode.IsSpace) {
		p.warnf(&s.Issues, CodeCommandToken, ptr, "server %s: \"command\" contains white space; it is run as one file name, "+
			"so put any arguments in \"args\"", q(s.Name))
	}
	switch err := p.contained(cmd); {
	case errors.Is(err, pathsafe.ErrEscapes):
		p.errorf(&s.Issues, CodeCommandEscapes, ptr, "server %s: \"command\" resolves outside the plugin root (spec §4.1); "+
			"keep the executable inside the plugin and do not link out of it", q(s.Name))
	case err != nil:
		p.errorf(&s.Issues, CodeCommandResolve, ptr, "server %s: \"command\" cannot be resolved inside the plugin root (%s); "+
			"make it a \"./\" path to a file in the plugin", q(s.Name), pathsafe.Reason(err))
	}
}

// cwd checks the three permitted forms and their containment (spec §7.2.1). Messages
// name the form, never the value.
func (p portable) cwd(s *Server, cwd, ptr string) {
	var err error
	var where string
	switch {
	case strings.HasPrefix(cwd, "./"):
		err, where = p.contained(cwd), "the plugin root"
	case cwd == rootVar || strings.HasPrefix(cwd, rootVar+"/"):
		err, where = p.contained("."+strings.TrimPrefix(cwd, rootVar)), "the plugin root"
	case cwd == dataVar || strings.HasPrefix(cwd, dataVar+"/"):
		// The data folder is the client's and may not exist yet: containment is lexical.
		if c := path.Clean("." + strings.TrimPrefix(cwd, dataVar)); c == ".." || strings.HasPrefix(c, "../") {
			err = pathsafe.ErrEscapes
		}
		where = "the plugin data folder"
	default:
		p.errorf(&s.Issues, CodeCwdForm, ptr, "server %s: \"cwd\" is not a permitted form; write \"./…\" (inside the plugin), "+
			"\"${PLUGIN_ROOT}/…\" or \"${PLUGIN_DATA}/…\"%s", q(s.Name), cwdHint(cwd))
		return
	}
	switch {
	case errors.Is(err, pathsafe.ErrEscapes):
		p.errorf(&s.Issues, CodeCwdEscapes, ptr, "server %s: \"cwd\" resolves outside %s; keep it inside", q(s.Name), where)
	case err != nil:
		p.errorf(&s.Issues, CodeCwdResolve, ptr, "server %s: \"cwd\" cannot be resolved inside %s (%s); name a folder inside it",
			q(s.Name), where, pathsafe.Reason(err))
	}
}

// cwdHint suggests the "./" form for a bare relative folder name, without repeating it.
func cwdHint(cwd string) string {
	if cwd != "" && !strings.ContainsAny(cwd[:1], "/.$~") {
		return "; for a folder inside the plugin, start the path with \"./\""
	}
	return ""
}

// contained resolves a "./" path against the root through symlinks (pathsafe). Without a
// root the check is lexical.
func (p portable) contained(rel string) error {
	if p.root == "" {
		if c := path.Clean(rel); c == ".." || strings.HasPrefix(c, "../") {
			return pathsafe.ErrEscapes
		}
		return nil
	}
	_, err := pathsafe.Resolve(p.root, rel)
	return err
}

// env checks the names of an env object (spec §9.2); values are never looked at except
// for a NUL byte, and never quoted.
func (p portable) env(s *Server, env map[string]any, ptr string) {
	for _, k := range sortedKeys(env) {
		kp := ptr + jsondoc.Pointer(k)
		switch {
		case k == "PLUGIN_ROOT" || k == "PLUGIN_DATA":
			p.errorf(&s.Issues, CodeEnvReserved, kp, "server %s: env must not set %s; the client sets it (spec §9.2), remove it", q(s.Name), k)
		case strings.EqualFold(k, "PLUGIN_ROOT") || strings.EqualFold(k, "PLUGIN_DATA"):
			p.warnf(&s.Issues, CodeEnvReserved, kp, "server %s: env %s differs from %s only by case; where names ignore case (Windows) "+
				"the client replaces it, so rename it", q(s.Name), q(k), strings.ToUpper(k))
		case k == "" || strings.ContainsAny(k, "=\x00"):
			// The name is not quoted, nor put in the pointer: KEY=value written as a key
			// holds a value.
			p.errorf(&s.Issues, CodeEnvName, ptr, "server %s: an \"env\" name cannot be set in a process environment (it is empty, or holds \"=\" or NUL); write the name alone as the key and the value as its value", q(s.Name))
			continue
		}
		if v, ok := env[k].(string); ok && strings.IndexByte(v, 0) >= 0 {
			p.errorf(&s.Issues, CodeNULByte, kp, "server %s: the value of env %s contains a NUL byte, which no process environment can carry", q(s.Name), q(k))
		}
	}
}

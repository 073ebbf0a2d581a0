package mcpconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
)

// DigestVersion is the version of the digest's input; it is part of that input, so a
// change of what the digest covers makes every earlier acknowledgment ask again rather
// than match by accident.
const DigestVersion = 1

// Digest identifies what a server runs, for acknowledgments (requirement A4 at launch):
// "sha256:<hex>" over the server's declaration as the catalog read it, reduced to the
// facts an acknowledgment is about and that are not secret:
//
//   - the type;
//   - stdio: the command exactly as written (not only the base name the Summary shows:
//     "./bin/lint" and "/tmp/x/lint" are different programs), the number of arguments,
//     cwd as written, and the sorted env key names;
//   - remote: the URL's origin (scheme://host[:port], lower-cased) and the sorted header
//     names.
//
// Values are left out on purpose: an env or header value, an argument and the URL's
// path and query are where tokens are written, and a digest of a short secret stored in
// the database could be reversed by trying values. So an edited token, a new argument
// value or another path on the same origin keep an acknowledgment; a new program, a new
// folder, a new env or header name, another argument count or another origin lose it.
// The digest says what the declaration asks to run, not what the program does: the code
// behind a stable command can change, and no digest of mcp.json can see that.
func Digest(s Server) string {
	in := struct {
		V           int
		Type        string
		Command     string   `json:",omitempty"`
		Args        int      `json:",omitempty"`
		Cwd         string   `json:",omitempty"`
		EnvKeys     []string `json:",omitempty"`
		Origin      string   `json:",omitempty"`
		HeaderNames []string `json:",omitempty"`
	}{V: DigestVersion, Type: s.Type}
	if s.Type == "stdio" || s.Type == "" && s.URL == "" {
		in.Command, in.Args, in.Cwd, in.EnvKeys = s.Command, len(s.Args), s.Cwd, keysOf(s.Env)
	} else {
		in.Origin, in.HeaderNames = strings.ToLower(origin(s.URL)), keysOf(s.Headers)
	}
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ShortDigest is the first 12 hex digits of a digest, for people.
func ShortDigest(d string) string {
	d = strings.TrimPrefix(d, "sha256:")
	if len(d) > 12 {
		d = d[:12]
	}
	return d
}

func keysOf(m map[string]string) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

package runtime

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plugboard/plugboard/backend/jsonfile"
)

// The state home of a Codex or Copilot launch (StateHome) is the client's own home for
// the session: the clients write their sessions, logs and ids into it, which a sealed
// projection must not hold. It is readied at every launch (never by a dry run), private
// (0700), and points into the projection: each projected skill is a link to its sealed
// folder. What the user has set up themselves reaches it without a copy of a secret: a
// credential file is a link to the user's, and settings are carried over less the
// settings that decide the launch set and any that may hold a secret (dropSecrets).

// readyStateHome makes home (0700) and in it the folder skills (a path inside home)
// holding one link per skill folder of projSkills, and nothing else. A folder that
// holds exactly those links already is left as it is (a session of the same launch may
// be running on it); any other is made anew.
func readyStateHome(home, projSkills, skills string) error {
	if err := privateDir(filepath.Dir(home)); err != nil {
		return err
	}
	if err := privateDir(home); err != nil {
		return err
	}
	entries, err := os.ReadDir(projSkills)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if linksTo(skills, projSkills, entries) {
		return nil
	}
	if err := os.RemoveAll(skills); err != nil {
		return err
	}
	if err := os.MkdirAll(skills, 0o700); err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(projSkills, e.Name()), filepath.Join(skills, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// linksTo reports whether dir holds one link per entry of want, each to it in target,
// and nothing else.
func linksTo(dir, target string, want []fs.DirEntry) bool {
	have, err := os.ReadDir(dir)
	if err != nil || len(have) != len(want) {
		return false
	}
	for i, e := range have {
		to, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil || e.Name() != want[i].Name() || to != filepath.Join(target, e.Name()) {
			return false
		}
	}
	return true
}

// linkUserFile makes at a link to the user's file user when it exists, and removes an
// earlier link when it does not. A regular file at at (the client replaced the link
// when it wrote the file) is left alone: it is the client's own, in a private folder.
func linkUserFile(user, at string) error {
	if st, err := os.Lstat(at); err == nil && st.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	_ = os.Remove(at)
	if _, err := os.Stat(user); err != nil {
		return nil
	}
	return os.Symlink(user, at)
}

// writePrivate writes a file of a state home atomically, 0600.
func writePrivate(p string, data []byte) error { return jsonfile.WriteAtomic(p, data, 0o600) }

// A setting is not carried into a launch's state home when its name says its value may
// be a secret: it holds one of secretParts, is one of secretNames (an env table, a shell
// policy's "set", a key) or ends in "key" (api_key, private_key), unless it is one of
// envNames, which name environment variables rather than hold values (Codex's env_key,
// env_key_instructions and env_http_headers). Case and '-'/'_' are ignored. A header, an
// env value or a token reaches the client through the user's own files and environment
// only.
var (
	secretParts = []string{"token", "secret", "passw", "credential", "cookie", "bearer", "header"}
	secretNames = []string{"env", "set", "key"}
	envNames    = []string{"envkey", "envkeyinstructions", "envhttpheaders"}
)

// secretName reports whether a setting named k may hold a secret.
func secretName(k string) bool {
	name := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(k))
	if slices.Contains(envNames, name) {
		return false
	}
	for _, w := range secretParts {
		if strings.Contains(name, w) {
			return true
		}
	}
	return slices.Contains(secretNames, name) || strings.HasSuffix(name, "key")
}

// dropSecrets deletes, at every depth of a decoded settings document, each member whose
// name may hold a secret (secretName).
func dropSecrets(m map[string]any) {
	for k, v := range m {
		if secretName(k) {
			delete(m, k)
			continue
		}
		dropIn(v)
	}
}

func dropIn(v any) {
	switch x := v.(type) {
	case map[string]any:
		dropSecrets(x)
	case []any:
		for _, e := range x {
			dropIn(e)
		}
	case []map[string]any:
		for _, e := range x {
			dropSecrets(e)
		}
	}
}

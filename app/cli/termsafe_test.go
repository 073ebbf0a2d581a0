package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// The escaper writes C0 controls as \xNN and DEL and C1 controls as \uNNNN, keeps
// newlines, tabs and other text, and decides a C1 control split across two writes.
func TestTermSafe(t *testing.T) {
	var b bytes.Buffer
	w := newTermSafe(&b)
	for _, p := range []string{"a\x1b]0;title\x07b\r\n", "\tdel\x7f é ", "csi\xc2", "\x9b ok\xc2", "\xa9\n"} {
		if n, err := w.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	want := `a\x1b]0;title\x07b\x0d` + "\n\tdel" + `\u007f` + " é csi" + `\u009b` + " ok©\n"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	// JSON stays JSON: encoding/json leaves DEL and C1 raw, the escaper writes what JSON would
	b.Reset()
	raw, _ := json.Marshal(map[string]string{"d": "x\x7f\u009by"})
	_, _ = w.Write(raw)
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["d"] != "x\x7f\u009by" {
		t.Errorf("%s decodes to %q, %v", b.Bytes(), back["d"], err)
	}
}

// Every command that prints a package's, skill's or marketplace's strings prints their
// control characters escaped: a skill folder and a description with ESC sequences, and
// a marketplace whose description sets the window title.
func TestCommandsEscapeControlCharacters(t *testing.T) {
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	evil := "evil\x1b[2K\x1b]0;pwned\x07"
	plugin := filepath.Join(pb, "plugins", "tools")
	write(t, filepath.Join(plugin, "plugin.json"), strings.Replace(manifest, "%s", "tools", 1))
	write(t, filepath.Join(plugin, "skills", evil, "SKILL.md"), "---\nname: evil\ndescription: \"Clears \\e[2K the line\"\n---\n")
	write(t, filepath.Join(home, ".claude", "skills", evil, "SKILL.md"), "---\nname: x\ndescription: y\n---\n")
	market := filepath.Join(t.TempDir(), "market")
	write(t, filepath.Join(market, "plugins", "p", ".claude-plugin", "plugin.json"), `{"name": "p"}`)
	write(t, filepath.Join(market, ".claude-plugin", "marketplace.json"), `{"name": "team", "owner": {"name": "T"}, "plugins": [
		{"name": "p", "source": "./plugins/p", "description": "Sets \u001b]0;owned\u0007 the title"}]}`)
	write(t, filepath.Join(pb, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/tools"]}`)
	env := map[string]string{"HOME": home}
	if code, _, errOut := run(t, env, "marketplace", "add", market); code != ExitOK {
		t.Fatalf("marketplace add = %d: %s", code, errOut)
	}
	for _, args := range [][]string{
		{"inspect", plugin},
		{"inspect", filepath.Join(plugin, "skills", evil)},
		{"catalog"},
		{"skills"},
		{"marketplace", "list"},
		{"install", filepath.Join(plugin, "skills", evil, "nothing")},
		{"launch", "--dry-run", "coder"},
	} {
		_, out, errOut := run(t, env, args...)
		all := out + errOut
		if strings.ContainsAny(all, "\x1b\x07") {
			t.Errorf("%s printed a raw control character: %q", args[0], all)
		}
		if !strings.Contains(all, `\x1b`) {
			t.Errorf("%s printed no escaped ESC: %q", strings.Join(args, " "), all)
		}
	}
}

// BenchmarkTermSafe: 1 MB of output with no control character, in 64 KiB writes (as
// catalog --json writes its chunks).
func BenchmarkTermSafe(b *testing.B) {
	chunk := []byte(strings.Repeat(`{"name":"skill-0042","description":"Réviser le code — ünïcode"},`, 1000))[:64<<10]
	w := newTermSafe(io.Discard)
	b.SetBytes(int64(len(chunk)) * 16)
	for b.Loop() {
		for range 16 {
			_, _ = w.Write(chunk)
		}
	}
}

// TestCleanWordAtATime: the eight-bytes-at-a-time check agrees with the byte-by-byte one
// for every byte value at every place of a word and of the tail after it.
func TestCleanWordAtATime(t *testing.T) {
	base := []byte("plain ascii text")
	for at := range len(base) + 3 {
		for v := range 256 {
			p := append([]byte(nil), base...)
			if at < len(p) {
				p[at] = byte(v)
			} else {
				p = append(p, byte(v))
			}
			if got, want := clean(p), cleanBytes(p); got != want {
				t.Fatalf("byte %#02x at %d of %q: clean %v, byte by byte %v", v, at, p, got, want)
			}
		}
	}
}

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// catalog reads the home on every run: a second write through a shared mapping to a
// page that is already dirty changes no size, mtime or ctime, and the next run still
// prints the new description (a cache keyed on file status printed the old one).
func TestCatalogSeesAWriteThroughAMapping(t *testing.T) {
	home, env := sample(t)
	skill := filepath.Join(home, ".claude", "skills", "greet", "SKILL.md")
	f, err := os.OpenFile(skill, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	m, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	at := bytes.Index(m, []byte("User greet"))
	for _, desc := range []string{"Aser greet", "Bser greet"} {
		copy(m[at:], desc)
		if _, out, _ := run(t, env, "catalog", "--json"); !strings.Contains(out, desc) {
			t.Fatalf("catalog after the mapping was written with %q:\n%.400s", desc, out)
		}
	}
}

// A relative HOME names a different folder from another working folder: the catalog
// takes it as the full path it names there.
func TestCatalogWithARelativeHome(t *testing.T) {
	for _, name := range []string{"first", "second"} {
		dir := t.TempDir()
		pb := filepath.Join(dir, "h", ".plugboard")
		write(t, filepath.Join(pb, "plugins", name, "plugin.json"), strings.Replace(manifest, "%s", name, 1))
		t.Chdir(dir)
		env := map[string]string{"HOME": "h", "PLUGBOARD_HOME": filepath.Join("h", ".plugboard")}
		_, out, _ := run(t, env, "catalog", "--json")
		if !strings.Contains(out, `"home":"`+filepath.Join(dir, "h")+`"`) || !strings.Contains(out, `"`+name+`"`) {
			t.Errorf("HOME=h in %s: catalog shows the other home, or a relative one:\n%.300s", dir, out)
		}
	}
}

// An answer that did not all get out (a full disk, a closed pipe) fails the run.
func TestCatalogFailsWhenTheAnswerDoesNotGetOut(t *testing.T) {
	_, env := sample(t)
	for _, form := range [][]string{{"--json"}, nil} {
		var errb bytes.Buffer
		code := Main(append([]string{"catalog"}, form...), Env{Stdout: failingWriter{}, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
		if code != ExitUsage {
			t.Errorf("catalog %v to a writer that fails = %d, want %d", form, code, ExitUsage)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

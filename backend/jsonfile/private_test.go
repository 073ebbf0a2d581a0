package jsonfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadPrivate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.json")
	os.WriteFile(p, []byte(`{"k": 1}`), 0o600)
	os.Chmod(p, 0o600)
	opt := Private{Max: 8, Holds: "secrets", Fix: "use the launcher's file"}
	if b, err := ReadPrivate(p, opt); err != nil || string(b) != `{"k": 1}` {
		t.Fatalf("ReadPrivate = %q, %v", b, err)
	}
	link := filepath.Join(dir, "link.json")
	os.Symlink(p, link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(`{"k": 12345}`), 0o600)
	shared := filepath.Join(dir, "shared.json")
	os.WriteFile(shared, []byte(`{}`), 0o600)
	os.Chmod(shared, 0o604)
	for path, want := range map[string]string{
		shared: "mode 0604 lets other users read or write it, and it holds secrets; run chmod 600 " + shared,
		link:   "not a regular file (a symlink); use the launcher's file",
		fifo:   "not a regular file (a special file)",
		dir:    "not a regular file (a folder)",
		big:    "12 bytes, more than the 8 it may have; use the launcher's file",
	} {
		_, err := ReadPrivate(path, opt)
		var pe *PrivateError
		if !errors.As(err, &pe) || !errors.Is(err, ErrNotPrivate) || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadPrivate(%s) = %v; want a refusal saying %q", path, err, want)
		}
	}
	if _, err := ReadPrivate(filepath.Join(dir, "absent"), opt); !errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrNotPrivate) || strings.Contains(err.Error(), dir) {
		t.Errorf("ReadPrivate(absent) = %v; want a bare not-exist error", err)
	}
}

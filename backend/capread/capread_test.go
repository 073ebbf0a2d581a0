package capread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadNoFollow(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "real"), []byte("x"), 0o644)
	os.Symlink("real", filepath.Join(dir, "link"))
	if b, err := ReadNoFollow(filepath.Join(dir, "real"), 10); err != nil || string(b) != "x" {
		t.Errorf("ReadNoFollow(real) = %q, %v", b, err)
	}
	if _, err := ReadNoFollow(filepath.Join(dir, "link"), 10); !errors.Is(err, ErrSymlink) {
		t.Errorf("ReadNoFollow(link) error = %v, want ErrSymlink", err)
	}
	if _, err := ReadNoFollow(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadNoFollow(missing) error = %v, want not exist", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o644)
	exact := filepath.Join(dir, "exact")
	os.WriteFile(exact, []byte(strings.Repeat("x", 10)), 0o644)
	big := filepath.Join(dir, "big")
	f, _ := os.Create(big)
	f.Truncate(100 << 20) // sparse 100 MB: refused by size before any read
	f.Close()
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink("small", link)
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)

	tests := []struct {
		path    string
		want    string
		wantErr error
	}{
		{small, "hello", nil},
		{exact, strings.Repeat("x", 10), nil},
		{link, "hello", nil},
		{big, "", ErrTooLarge},
		{dir, "", ErrNotRegular},
		{fifo, "", ErrNotRegular},
		{filepath.Join(dir, "missing"), "", os.ErrNotExist},
		{loop, "", syscall.ELOOP},
	}
	for _, tc := range tests {
		got, err := ReadFile(tc.path, 10)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("ReadFile(%s) error = %v, want %v", filepath.Base(tc.path), err, tc.wantErr)
			}
			if Describe(err) == "" {
				t.Errorf("Describe(%v) is empty", err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", filepath.Base(tc.path), got, err, tc.want)
		}
	}
}

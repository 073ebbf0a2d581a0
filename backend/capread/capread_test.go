package capread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

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

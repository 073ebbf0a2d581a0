// Package jsonfile rewrites user JSON files safely: members of the top-level object keep
// their order and bytes except those replaced (Members, Set, Encode re-indent the file
// the way Encode writes it; SetMember changes the bytes of one member of any object and
// nothing else, in the file's own style), and a write is atomic (temporary file in the
// same folder, fsync, rename, folder fsync), so a crash leaves the old file or the new
// one, never a torn one. Lock serialises read-compare-write across processes.
// ReadPrivate reads a file that must be private to its owner (a launch's server
// configs). The functions hold no state and are safe for concurrent use.
// Hand-written over encoding/json's tokens: Unmarshal+Marshal would lose the user's formatting and member order.
package jsonfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Member is one top-level member: its key and its value as written.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members returns the members of a top-level JSON object in file order; empty input is
// an empty object.
func Members(data []byte) ([]Member, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("the top level is not an object")
	}
	var out []Member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, Member{key, raw})
	}
	return out, nil
}

// Set replaces the value of key in place, or appends the member when it is absent.
// A nil value removes the member.
func Set(members []Member, key string, value any) ([]Member, error) {
	if value == nil {
		out := members[:0:0]
		for _, m := range members {
			if m.Key != key {
				out = append(out, m)
			}
		}
		return out, nil
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	for i := range members {
		if members[i].Key == key {
			members[i].Value = raw
			return members, nil
		}
	}
	return append(members, Member{key, raw}), nil
}

// Encode writes the members as an object indented by two spaces, one member a line.
func Encode(members []Member) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("{\n")
	for i, m := range members {
		k, _ := json.Marshal(m.Key)
		var v bytes.Buffer
		if err := json.Indent(&v, m.Value, "  ", "  "); err != nil {
			return nil, fmt.Errorf("member %q: %w", m.Key, err)
		}
		fmt.Fprintf(&buf, "  %s: %s", k, v.Bytes())
		if i < len(members)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// WriteAtomic writes data to a temporary file beside p, syncs it, and renames it over p.
func WriteAtomic(p string, data []byte, mode fs.FileMode) error {
	return writeAtomic(p, mode, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteCacheAtomic writes what write gives to a temporary file beside p (buffered) and
// renames it over p, without flushing the file and its folder to the disk: for a cache
// that detects a file a crash cut short (which costs it a recomputation, not every save a
// flush).
func WriteCacheAtomic(p string, mode fs.FileMode, write func(io.Writer) error) error {
	return writeAtomic(p, mode, false, func(w io.Writer) error {
		b := bufio.NewWriterSize(w, 256<<10)
		if err := write(b); err != nil {
			return err
		}
		return b.Flush()
	})
}

func writeAtomic(p string, mode fs.FileMode, sync bool, write func(io.Writer) error) error {
	dir := filepath.Dir(p)
	f, err := os.CreateTemp(dir, "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename this finds nothing
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	if !sync {
		return nil
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the rename durable
		d.Close()
	}
	return nil
}

// Lock takes an exclusive advisory lock on the file lockPath (created if needed) and
// returns the function that releases it. Other processes taking the same lock wait.
func Lock(lockPath string) (func(), error) {
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

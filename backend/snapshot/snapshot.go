// Package snapshot is a catalog snapshot as a value: one row per plugin as one scan saw
// it, the hash of those rows and their totals. It reads and writes nothing.
//
// backend/catalog makes the rows of a catalog and compares two snapshots
// (catalog.SnapshotRows, catalog.DiffSnapshots); backend/store keeps snapshots in
// SQLite. The rows live here, a package that depends on nothing of Plugboard's, so that
// neither of those two depends on the other: the catalog, and the commands that only
// read it (inspect, catalog, skills, watch), build without cgo, which the SQLite driver
// needs.
package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// Snapshot is the catalog as one scan saw it: one row per plugin, in catalog order.
type Snapshot struct {
	ID      int64     `json:"id"`
	Time    time.Time `json:"time"` // UTC
	Hash    string    `json:"hash"` // over the plugin rows; see Hash
	Plugins []Plugin  `json:"plugins"`
	// Totals are the catalog's own counts at the snapshot (nil: a snapshot stored before
	// they were kept). The rows are plugins only; these count standalone skills and the
	// catalog's own issues too, as the header and catalog --json do.
	Totals *Totals `json:"totals,omitempty"`
}

// Totals are a catalog's issue counts (catalog.Summary.Issues).
type Totals struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// Plugin is one plugin's row in a snapshot.
type Plugin struct {
	ID          string `json:"id"`
	Source      string `json:"source"`
	Path        string `json:"path"`
	ContentHash string `json:"contentHash"`
	Valid       bool   `json:"valid"`
	Errors      int    `json:"errors"`
	Warnings    int    `json:"warnings"`
	Skills      int    `json:"skills"`
	Servers     int    `json:"servers"`
}

// MarshalJSON writes no plugins as [] rather than null.
func (sn Snapshot) MarshalJSON() ([]byte, error) {
	type plain Snapshot // without the method, to avoid recursion
	p := plain(sn)
	if p.Plugins == nil {
		p.Plugins = []Plugin{}
	}
	return json.Marshal(p)
}

// Info is a snapshot's totals without its rows, for lists.
type Info struct {
	ID       int64     `json:"id"`
	Time     time.Time `json:"time"`
	Hash     string    `json:"hash"`
	Plugins  int       `json:"plugins"`
	Valid    int       `json:"valid"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
}

// Info totals the snapshot: its catalog's counts when it has them, else its rows'.
func (sn Snapshot) Info() Info {
	s := Info{ID: sn.ID, Time: sn.Time, Hash: sn.Hash, Plugins: len(sn.Plugins)}
	for _, p := range sn.Plugins {
		s.Errors += p.Errors
		s.Warnings += p.Warnings
		if p.Valid {
			s.Valid++
		}
	}
	if sn.Totals != nil {
		s.Errors, s.Warnings = sn.Totals.Errors, sn.Totals.Warnings
	}
	return s
}

// Hash is the hash a snapshot's rows have when it comes without one (store.AddSnapshot
// computes it): "sha256-rows:" and the hex SHA-256 of the rows' digests in order, each the
// SHA-256 of the row's JSON as encoding/json writes it (appendRow: TestHashIsOfTheJSON,
// FuzzAppendString). Equal rows in equal order give equal hashes. Hashing digests rather
// than the whole JSON lets a Hasher re-hash only the rows that changed.
func Hash(plugins []Plugin) string {
	var h Hasher
	return h.Hash(plugins)
}

// HashPrefix starts every hash Hash makes; JSONHashPrefix starts those of earlier versions.
const (
	HashPrefix     = "sha256-rows:"
	JSONHashPrefix = "sha256:"
)

// Hasher hashes successive snapshots of one catalog as Hash does, remembering each
// row's digest: a row equal to the one at its position in the previous call keeps its
// digest, so after one edit in a thousand plugins one row is hashed, and the digests
// (32 bytes a row) are. The rows passed must not be modified afterwards. The zero value
// is ready; a Hasher is not for concurrent use.
type Hasher struct {
	rows    []Plugin
	digests [][sha256.Size]byte
	buf     []byte
	hashed  int // rows the last call hashed
}

// Hash returns Hash(plugins).
func (h *Hasher) Hash(plugins []Plugin) string {
	digests := make([][sha256.Size]byte, len(plugins))
	h.hashed = 0
	for i := range plugins {
		if i < len(h.rows) && h.rows[i] == plugins[i] {
			digests[i] = h.digests[i]
			continue
		}
		h.buf = appendRow(h.buf[:0], &plugins[i])
		digests[i] = sha256.Sum256(h.buf)
		h.hashed++
	}
	h.rows, h.digests = plugins, digests
	sum := sha256.New()
	for i := range digests {
		sum.Write(digests[i][:])
	}
	return HashPrefix + hex.EncodeToString(sum.Sum(nil))
}

// JSONHash is the hash earlier versions stored: "sha256:" and the hex SHA-256 of the rows'
// JSON as encoding/json writes it. store.AddSnapshot compares a new snapshot with the newest
// stored one by it when that one has such a hash, so the first scan after an upgrade does not
// store a copy of an unchanged catalog. The JSON is written row by row into the hash.
func JSONHash(plugins []Plugin) string {
	h := sha256.New()
	buf := make([]byte, 0, 512)
	buf = append(buf, '[')
	for i := range plugins {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendRow(buf, &plugins[i])
		if len(buf) > 4096 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	buf = append(buf, ']')
	h.Write(buf)
	return JSONHashPrefix + hex.EncodeToString(h.Sum(nil))
}

// appendRow appends p as encoding/json encodes a Plugin (fields in order, their tags).
func appendRow(b []byte, p *Plugin) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, p.ID)
	b = append(b, `,"source":`...)
	b = appendString(b, p.Source)
	b = append(b, `,"path":`...)
	b = appendString(b, p.Path)
	b = append(b, `,"contentHash":`...)
	b = appendString(b, p.ContentHash)
	b = append(b, `,"valid":`...)
	b = strconv.AppendBool(b, p.Valid)
	b = append(b, `,"errors":`...)
	b = strconv.AppendInt(b, int64(p.Errors), 10)
	b = append(b, `,"warnings":`...)
	b = strconv.AppendInt(b, int64(p.Warnings), 10)
	b = append(b, `,"skills":`...)
	b = strconv.AppendInt(b, int64(p.Skills), 10)
	b = append(b, `,"servers":`...)
	b = strconv.AppendInt(b, int64(p.Servers), 10)
	return append(b, '}')
}

// appendString appends s quoted as encoding/json quotes a string by default: HTML
// characters, U+2028 and U+2029 escaped as \u00XX and \u20XX, control characters as
// \n, \r, \t, \b, \f or \u00XX, invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

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
	"time"
)

// Snapshot is the catalog as one scan saw it: one row per plugin, in catalog order.
type Snapshot struct {
	ID      int64     `json:"id"`
	Time    time.Time `json:"time"` // UTC
	Hash    string    `json:"hash"` // over the plugin rows; see Hash
	Plugins []Plugin  `json:"plugins"`
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

// Info totals the snapshot's rows.
func (sn Snapshot) Info() Info {
	s := Info{ID: sn.ID, Time: sn.Time, Hash: sn.Hash, Plugins: len(sn.Plugins)}
	for _, p := range sn.Plugins {
		s.Errors += p.Errors
		s.Warnings += p.Warnings
		if p.Valid {
			s.Valid++
		}
	}
	return s
}

// Hash is the hash a snapshot's rows have when it comes without one (store.AddSnapshot
// computes it): "sha256:" and the hex SHA-256 of the rows' JSON, so equal rows in equal
// order give equal hashes.
func Hash(plugins []Plugin) string {
	if plugins == nil {
		plugins = []Plugin{}
	}
	b, _ := json.Marshal(plugins) // plain strings, bools and ints: cannot fail
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

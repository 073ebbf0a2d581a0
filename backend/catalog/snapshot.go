package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/plugboard/plugboard/backend/snapshot"
)

// SnapshotRows returns one snapshot row per plugin, in catalog order, for
// store.AddSnapshot. Skills and Servers count what is catalogued, valid or not; Errors
// and Warnings total every issue of the plugin, its components' included. ContentHash is
// ContentHash of the plugin. No file is read. The row type is backend/snapshot's, not
// backend/store's: the catalog must not depend on the store, whose SQLite driver needs
// cgo (TestNoStoreDependency).
func SnapshotRows(c *Catalog) []snapshot.Plugin { return SnapshotRowsSince(nil, nil, c) }

// SnapshotRowsSince is SnapshotRows reusing prevRows, the rows of prev: a plugin that a
// Refresh shared between prev and c (the same value at the same place) keeps its row, so
// a live reload hashes only the plugins it read again.
func SnapshotRowsSince(prev *Catalog, prevRows []snapshot.Plugin, c *Catalog) []snapshot.Plugin {
	rows := make([]snapshot.Plugin, len(c.Plugins))
	for i := range c.Plugins {
		p := &c.Plugins[i]
		if prev != nil && i < len(prev.Plugins) && i < len(prevRows) && sameMemory(&prev.Plugins[i], p) {
			rows[i] = prevRows[i]
			continue
		}
		rows[i] = snapshot.Plugin{ID: p.ID, Source: p.Source, Path: p.Path, ContentHash: ContentHash(p),
			Valid: p.Valid, Errors: p.IssueCounts.Errors, Warnings: p.IssueCounts.Warnings,
			Skills: len(p.Skills), Servers: len(servers(p))}
	}
	return rows
}

// ContentHash identifies the plugin as the catalog loaded it: "sha256:" and the hex
// SHA-256 of its JSON (metadata, skills with their fields, sanitised MCP summaries,
// issues). A change the catalog does not show — a SKILL.md body, an env or header value,
// a file no component names — does not change it.
func ContentHash(p *Plugin) string {
	b, err := json.Marshal(p)
	if err != nil { // plain strings, numbers and lists: cannot happen
		b = []byte(err.Error())
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// DiffSnapshots lists the plugins added, removed or changed from snapshot a to b
// (plugin level, matched by source and folder), sorted as Diff sorts. A changed plugin's
// Detail gives validity, issue count deltas and skill and server counts that moved, or
// "content changed" when only its content hash did.
func DiffSnapshots(a, b snapshot.Snapshot) []Change {
	type key struct{ source, path string }
	rows := func(sn snapshot.Snapshot) map[key]snapshot.Plugin {
		m := make(map[key]snapshot.Plugin, len(sn.Plugins))
		for _, p := range sn.Plugins {
			m[key{p.Source, p.Path}] = p
		}
		return m
	}
	ra, rb := rows(a), rows(b)
	var out []Change
	for k, p := range rb {
		old, ok := ra[k]
		switch {
		case !ok:
			out = append(out, Change{Kind: Added, What: WhatPlugin, ID: p.ID, Path: p.Path, Detail: rowState(p)})
		case old != p:
			out = append(out, Change{Kind: Changed, What: WhatPlugin, ID: p.ID, Path: p.Path, Detail: rowDetail(old, p)})
		}
	}
	for k, p := range ra {
		if _, ok := rb[k]; !ok {
			out = append(out, Change{Kind: Removed, What: WhatPlugin, ID: p.ID, Path: p.Path})
		}
	}
	sortChanges(out)
	return out
}

func rowState(p snapshot.Plugin) string {
	c := Counts{Errors: p.Errors, Warnings: p.Warnings}
	if !p.Valid {
		return "invalid, " + c.String()
	}
	return fmt.Sprintf("valid, %s, %s, %s", plural(p.Skills, "skill"), plural(p.Servers, "server"), c)
}

func rowDetail(a, b snapshot.Plugin) string {
	d := appendFlip(nil, "", a.Valid, b.Valid)
	d = append(d, issueDelta(Counts{a.Errors, a.Warnings}, Counts{b.Errors, b.Warnings})...)
	if a.Skills != b.Skills {
		d = append(d, fmt.Sprintf("skills %d → %d", a.Skills, b.Skills))
	}
	if a.Servers != b.Servers {
		d = append(d, fmt.Sprintf("servers %d → %d", a.Servers, b.Servers))
	}
	if a.ID != b.ID {
		d = append(d, "id "+a.ID+" → "+b.ID)
	}
	if len(d) == 0 {
		d = append(d, "content changed")
	}
	return strings.Join(d, ", ")
}

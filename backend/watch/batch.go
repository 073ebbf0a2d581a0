package watch

import (
	"slices"
	"strings"
	"time"
)

// changes accumulates what happened since the last flush.
type changes struct {
	paths   map[string]struct{}
	full    bool // more than maxBatchPaths: paths dropped, Rescan asked
	reasons []string
	first   time.Time // first change since the last flush
	last    time.Time // latest change not yet scheduled; zero once scheduled
}

func (c *changes) empty() bool { return len(c.paths) == 0 && len(c.reasons) == 0 }

func (c *changes) touch() {
	now := time.Now()
	if c.empty() {
		c.first = now
	}
	c.last = now
}

func (c *changes) add(p string) {
	if c.full {
		return
	}
	c.touch()
	if c.paths == nil {
		c.paths = map[string]struct{}{}
	}
	c.paths[p] = struct{}{}
	if len(c.paths) > maxBatchPaths {
		c.paths = nil
		c.full = true
		c.rescan("too many changes at once")
	}
}

func (c *changes) rescan(reason string) {
	c.touch()
	if !slices.Contains(c.reasons, reason) {
		c.reasons = append(c.reasons, reason)
	}
}

// take returns the accumulated changes as a Batch and resets c.
func (c *changes) take() Batch {
	b := Batch{Rescan: len(c.reasons) > 0, Reason: strings.Join(c.reasons, "; ")}
	for p := range c.paths {
		b.Paths = append(b.Paths, p)
	}
	slices.Sort(b.Paths)
	*c = changes{}
	return b
}

// merge folds b into a Batch the reader has not taken yet.
func merge(a, b Batch) Batch {
	var c changes
	for _, x := range []Batch{a, b} {
		for _, reason := range strings.Split(x.Reason, "; ") {
			if reason != "" {
				c.rescan(reason)
			}
		}
		for _, p := range x.Paths {
			c.add(p)
		}
	}
	return c.take()
}

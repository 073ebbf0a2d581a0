// Package issue holds the one shape every validation problem takes: a severity, a stable
// code, the file, a JSON pointer or line, and a message that says how to fix it (F10).
//
// Issues are plain values; packages collect them in a List and never stop at the first
// one. A List is not safe for concurrent use.
package issue

import (
	"fmt"
	"sort"
)

// Severity orders how bad an issue is.
type Severity string

const (
	// Error makes the thing it is attached to invalid (a plugin, a skill, a server, a component).
	Error Severity = "error"
	// Warning is reported and ignored; the thing still loads.
	Warning Severity = "warning"
	// Info is a fact worth showing that needs no fix (for example "not supported yet").
	Info Severity = "info"
)

// Issue is one problem found in one file.
type Issue struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	// Path is the file, relative to the package root for package files and absolute otherwise.
	Path string `json:"path"`
	// Pointer is an RFC 6901 JSON pointer into Path, when Path is JSON or YAML frontmatter.
	Pointer string `json:"pointer,omitempty"`
	// Line is 1-based; 0 when unknown.
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// String renders the issue as a compiler does: path:line: severity: message [code].
func (i Issue) String() string {
	loc := i.Path
	if loc == "" {
		loc = "."
	}
	if i.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, i.Line)
	}
	return fmt.Sprintf("%s: %s: %s [%s]", loc, i.Severity, i.Message, i.Code)
}

// List collects issues in the order they were found.
type List []Issue

// Add appends one issue.
func (l *List) Add(sev Severity, code, path, pointer, format string, args ...any) {
	*l = append(*l, Issue{Severity: sev, Code: code, Path: path, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// Errorf appends an error.
func (l *List) Errorf(code, path, pointer, format string, args ...any) {
	l.Add(Error, code, path, pointer, format, args...)
}

// Warnf appends a warning.
func (l *List) Warnf(code, path, pointer, format string, args ...any) {
	l.Add(Warning, code, path, pointer, format, args...)
}

// HasErrors reports whether any issue is an error.
func (l List) HasErrors() bool {
	for _, i := range l {
		if i.Severity == Error {
			return true
		}
	}
	return false
}

// Count returns the number of errors and warnings.
func (l List) Count() (errors, warnings int) {
	for _, i := range l {
		switch i.Severity {
		case Error:
			errors++
		case Warning:
			warnings++
		}
	}
	return errors, warnings
}

// Prefix returns a copy whose relative paths are joined under dir (for issues found in a
// sub-folder, such as a skill inside a plugin).
func (l List) Prefix(dir string) List {
	out := make(List, len(l))
	for k, i := range l {
		if dir != "" && i.Path != "" && i.Path[0] != '/' {
			i.Path = dir + "/" + i.Path
		}
		out[k] = i
	}
	return out
}

// Sort orders issues by path, then line, then pointer, keeping the found order otherwise.
func (l List) Sort() {
	sort.SliceStable(l, func(a, b int) bool {
		if l[a].Path != l[b].Path {
			return l[a].Path < l[b].Path
		}
		if l[a].Line != l[b].Line {
			return l[a].Line < l[b].Line
		}
		return l[a].Pointer < l[b].Pointer
	})
}

// NonNil returns l, or an empty list when l is nil, so that JSON shows [] rather than null.
func (l List) NonNil() List {
	if l == nil {
		return List{}
	}
	return l
}

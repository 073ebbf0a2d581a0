package app

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/plugboard/plugboard/backend/activity"
	"github.com/plugboard/plugboard/backend/jsonfile"
)

// The CSV export of the Activity view: one table (RFC 4180: comma-separated, CRLF line
// ends, a field with a comma, a quote or a line break in double quotes, quotes doubled),
// one row per skill and one per MCP tool, so that every row has the same columns:
//
//	kind,skill,plugin,server,tool,uses,calls,errors,p50ms,last,<target>…
//
// kind is "skill" or "tool"; a skill row fills skill, plugin, uses and last, a tool row
// server, plugin, tool, calls, errors, p50ms (the median time to the answer, in
// milliseconds) and last. last is UTC, RFC 3339, to the second. One column per target
// that appears in the report (sorted) counts that target's uses or calls, 0 for none.
//
// A spreadsheet runs a cell that starts with =, +, -, @ (or a tab or carriage return) as
// a formula. Names come from plugin folders and MCP servers the user did not write, so
// such a text field gets a leading apostrophe (' — the convention spreadsheets read as
// "this is text"), and is then quoted as any other field would be. Numbers and times
// never start with one of these.

// activityCSVHeader is the fixed part of the header.
var activityCSVHeader = []string{"kind", "skill", "plugin", "server", "tool", "uses", "calls", "errors", "p50ms", "last"}

// ActivityCSV returns the Activity report of the last days days (0: all time) as CSV.
func (s *Service) ActivityCSV(days int) (string, error) {
	rep, err := s.Activity(days)
	if err != nil {
		return "", err
	}
	return string(activityCSV(rep)), nil
}

// SaveActivityCSV asks for a file with the window's save dialog and writes the CSV of
// the last days days there (atomically); it returns the path, "" when the dialog was
// cancelled. Over HTTP there is no dialog (unsupported): the page downloads the text of
// ActivityCSV instead.
func (s *Service) SaveActivityCSV(days int) (string, error) {
	s.mu.Lock()
	saveAs := s.saveAs
	s.mu.Unlock()
	if saveAs == nil {
		return "", &Error{Code: CodeUnsupported, Message: "no native save dialog here; the page downloads the file instead"}
	}
	path, err := saveAs(ActivityCSVName(days, time.Now()))
	if err != nil {
		return "", &Error{Code: CodeIO, Message: err.Error()}
	}
	if path == "" {
		return "", nil
	}
	text, err := s.ActivityCSV(days)
	if err != nil {
		return "", err
	}
	mode := fs.FileMode(0o644) // as a browser saves a download
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return "", &Error{Code: CodeInvalid, Message: path + " is not a regular file; choose another name"}
		}
		mode = st.Mode().Perm() // the dialog asked before replacing it: keep its mode
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", &Error{Code: CodeIO, Message: err.Error()}
	}
	if err := jsonfile.WriteAtomic(path, []byte(text), mode); err != nil {
		return "", &Error{Code: CodeIO, Message: err.Error()}
	}
	return path, nil
}

// SetFileSaver gives the service the window's save dialog: save is offered a file name
// and returns the chosen path, "" when cancelled (a function, not a method, for the same
// reason as SetFolderPicker).
func SetFileSaver(s *Service, save func(defaultName string) (string, error)) {
	s.mu.Lock()
	s.saveAs = save
	s.mu.Unlock()
}

// ActivityCSVName is the file name an export of days days made at now is offered under
// (the page's download uses the same): plugboard-activity-30-days-2025-05-14.csv,
// plugboard-activity-all-time-2025-05-14.csv.
func ActivityCSVName(days int, now time.Time) string {
	period := "all-time"
	if days > 0 {
		period = strconv.Itoa(days) + "-days"
	}
	return "plugboard-activity-" + period + "-" + now.Format(activity.DayLayout) + ".csv"
}

// activityCSV writes rep's skills and tools as the table described above.
func activityCSV(rep activity.Report) []byte {
	var targets []string
	for _, u := range rep.Skills {
		for t := range u.ByTarget {
			targets = append(targets, t)
		}
	}
	for _, u := range rep.Tools {
		for t := range u.ByTarget {
			targets = append(targets, t)
		}
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)

	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	header := slices.Clone(activityCSVHeader)
	for _, t := range targets {
		header = append(header, csvText(t))
	}
	w.Write(header)
	counts := func(by map[string]int) []string {
		out := make([]string, len(targets))
		for i, t := range targets {
			out[i] = strconv.Itoa(by[t])
		}
		return out
	}
	for _, u := range rep.Skills {
		w.Write(append([]string{"skill", csvText(u.ID), csvText(u.Plugin), "", "", strconv.Itoa(u.Uses), "", "", "", csvTime(u.Last)},
			counts(u.ByTarget)...))
	}
	for _, u := range rep.Tools {
		w.Write(append([]string{"tool", "", csvText(u.Plugin), csvText(u.Server), csvText(u.Tool), "", strconv.Itoa(u.Calls),
			strconv.Itoa(u.Errors), strconv.FormatInt(u.P50ms, 10), csvTime(u.Last)}, counts(u.ByTarget)...))
	}
	w.Flush() // writes to a bytes.Buffer cannot fail
	return buf.Bytes()
}

// csvText guards a text field against being run as a spreadsheet formula.
func csvText(s string) string {
	if s != "" {
		switch s[0] {
		case '=', '+', '-', '@', '\t', '\r':
			return "'" + s
		}
	}
	return s
}

func csvTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

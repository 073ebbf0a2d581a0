package app

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/activity"
)

// The CSV export quotes as RFC 4180 says, ends lines with CRLF, has one column per
// target, and makes a name that a spreadsheet would run as a formula plain text.
func TestActivityCSV(t *testing.T) {
	last := time.Date(2025, 5, 14, 9, 30, 12, 999, time.FixedZone("x", 2*3600))
	rep := activity.Report{
		Skills: []activity.SkillUse{
			{ID: "review:check", Plugin: "review", Uses: 3, Last: last, ByTarget: map[string]int{"agent:coder": 2, "agent:b": 1}},
			{ID: "=cmd|' /C calc'!A0", Plugin: "evil,\"x\"", Uses: 1, Last: last, ByTarget: map[string]int{}},
			{ID: "bare", Uses: 1}, // a claude started by hand: no target; no time recorded
		},
		Tools: []activity.ToolUse{
			{Server: "lint", Plugin: "review", Tool: "@run\nlint", Calls: 4, Errors: 1, P50ms: 120, Last: last, ByTarget: map[string]int{"agent:coder": 4}},
			{Server: "-s", Plugin: "+p", Tool: "ok", Calls: 1},
		},
	}
	got := string(activityCSV(rep))
	want := "kind,skill,plugin,server,tool,uses,calls,errors,p50ms,last,agent:b,agent:coder\r\n" +
		"skill,review:check,review,,,3,,,,2025-05-14T07:30:12Z,1,2\r\n" +
		"skill,'=cmd|' /C calc'!A0,\"evil,\"\"x\"\"\",,,1,,,,2025-05-14T07:30:12Z,0,0\r\n" +
		"skill,bare,,,,1,,,,,0,0\r\n" +
		"tool,,review,lint,\"'@run\r\nlint\",,4,1,120,2025-05-14T07:30:12Z,0,4\r\n" +
		"tool,,'+p,'-s,ok,,1,0,0,,0,0\r\n"
	if got != want {
		t.Errorf("CSV:\n%q\nwant\n%q", got, want)
	}
	// (encoding/csv writes a line break inside a quoted field as CRLF too, as RFC 4180 does)
	rows, err := csv.NewReader(strings.NewReader(got)).ReadAll()
	if err != nil || len(rows) != 6 || rows[2][1] != "'=cmd|' /C calc'!A0" || rows[2][2] != "evil,\"x\"" {
		t.Errorf("read back: %q, %v", rows, err)
	}
	if empty := string(activityCSV(activity.Report{})); empty != "kind,skill,plugin,server,tool,uses,calls,errors,p50ms,last\r\n" {
		t.Errorf("no activity: %q", empty)
	}
}

func TestActivityCSVName(t *testing.T) {
	now := time.Date(2025, 5, 14, 23, 0, 0, 0, time.Local)
	if got := ActivityCSVName(30, now); got != "plugboard-activity-30-days-2025-05-14.csv" {
		t.Errorf("30 days: %s", got)
	}
	if got := ActivityCSVName(0, now); got != "plugboard-activity-all-time-2025-05-14.csv" {
		t.Errorf("all time: %s", got)
	}
}

// SaveActivityCSV is the window's: over HTTP (no save dialog) it is unsupported; with one
// it writes the CSV where the dialog says, and nothing when the dialog is cancelled.
func TestSaveActivityCSV(t *testing.T) {
	s := NewService(t.TempDir(), t.TempDir(), nil)
	if _, err := s.SaveActivityCSV(30); err == nil || err.(*Error).Code != CodeUnsupported {
		t.Fatalf("without a dialog: %v, want unsupported", err)
	}
	dir := t.TempDir()
	var offered string
	answer := ""
	SetFileSaver(s, func(name string) (string, error) { offered = name; return answer, nil })
	if path, err := s.SaveActivityCSV(7); err != nil || path != "" {
		t.Fatalf("cancelled: %q, %v", path, err)
	}
	if offered != ActivityCSVName(7, time.Now()) {
		t.Errorf("offered %q", offered)
	}
	answer = filepath.Join(dir, "out.csv")
	if err := os.WriteFile(answer, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	path, err := s.SaveActivityCSV(7)
	if err != nil || path != answer {
		t.Fatalf("saved: %q, %v", path, err)
	}
	want, _ := s.ActivityCSV(7)
	data, _ := os.ReadFile(path)
	if string(data) != want || !strings.HasPrefix(want, "kind,skill,") {
		t.Errorf("file holds %q, want %q", data, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v: a replaced file keeps its mode", st.Mode().Perm())
	}
}

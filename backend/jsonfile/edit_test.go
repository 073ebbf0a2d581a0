package jsonfile

import (
	"strings"
	"testing"
)

// crlf writes a test file with CRLF line endings.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// TestSetMemberKeepsTheFile: only the member's bytes change; a new value follows the
// file's indentation (2 or 4 spaces, tabs), line endings and one-line style.
func TestSetMemberKeepsTheFile(t *testing.T) {
	dirs := []string{"plugins/a", "r&d/<b>"}
	for _, c := range []struct {
		name, in, ptr string
		value         any
		want          string
	}{
		{"two spaces: replaced over several lines", "{\n  \"name\": \"x\",\n  \"pluginDirs\": [\n    \"old\"\n  ],\n  \"n\": 1.50\n}\n", "", dirs,
			"{\n  \"name\": \"x\",\n  \"pluginDirs\": [\n    \"plugins/a\",\n    \"r&d/<b>\"\n  ],\n  \"n\": 1.50\n}\n"},
		{"four spaces and CRLF stay", crlf("{\n    \"name\": \"x\",\n    \"pluginDirs\": [\n        \"old\"\n    ],\n    \"profile\": {\"model\": \"m\"}\n}\n"), "", dirs,
			crlf("{\n    \"name\": \"x\",\n    \"pluginDirs\": [\n        \"plugins/a\",\n        \"r&d/<b>\"\n    ],\n    \"profile\": {\"model\": \"m\"}\n}\n")},
		{"tabs: appended when absent", "{\n\t\"name\": \"x\",\n\t\"profile\":  \"p\"\n}", "", dirs,
			"{\n\t\"name\": \"x\",\n\t\"profile\":  \"p\",\n\t\"pluginDirs\":  [\n\t\t\"plugins/a\",\n\t\t\"r&d/<b>\"\n\t]\n}"},
		{"a one-line value stays on one line, spaced", "{\n  \"name\": \"x\",\n  \"pluginDirs\": [\"old\", \"older\"]\n}\n", "", dirs,
			"{\n  \"name\": \"x\",\n  \"pluginDirs\": [\"plugins/a\", \"r&d/<b>\"]\n}\n"},
		{"a one-line value stays on one line, unspaced", "{\n  \"name\": \"x\",\n  \"pluginDirs\": [\"old\",\"older\"]\n}\n", "", dirs,
			"{\n  \"name\": \"x\",\n  \"pluginDirs\": [\"plugins/a\",\"r&d/<b>\"]\n}\n"},
		{"an empty value takes the file's style", "{\n  \"name\": \"x\",\n  \"pluginDirs\": []\n}\n", "", []string{"plugins/a"},
			"{\n  \"name\": \"x\",\n  \"pluginDirs\": [\n    \"plugins/a\"\n  ]\n}\n"},
		{"an empty list is []", "{\n  \"name\": \"x\",\n  \"pluginDirs\": [\n    \"old\"\n  ]\n}\n", "", []string{},
			"{\n  \"name\": \"x\",\n  \"pluginDirs\": []\n}\n"},
		{"a file on one line stays on one line", `{"name":"x","pluginDirs":["old"],"z":null}`, "", dirs,
			`{"name":"x","pluginDirs":["plugins/a","r&d/<b>"],"z":null}`},
		{"a one-line file: appended on its line", `{"name": "x"}`, "", dirs,
			`{"name": "x", "pluginDirs": ["plugins/a", "r&d/<b>"]}`},
		{"deleted in the middle", crlf("{\n    \"name\": \"x\",\n    \"pluginDirs\": [\n        \"old\"\n    ],\n    \"z\": 2\n}\n"), "", nil,
			crlf("{\n    \"name\": \"x\",\n    \"z\": 2\n}\n")},
		{"deleted last, with the comma before it", "{\n  \"name\": \"x\",\n  \"pluginDirs\": [\"old\"]\n}\n", "", nil,
			"{\n  \"name\": \"x\"\n}\n"},
		{"deleted alone", "{\n  \"pluginDirs\": []\n}\n", "", nil, "{}\n"},
		{"deleting an absent member changes nothing", "{\n  \"name\": \"x\"\n}\n", "", nil, "{\n  \"name\": \"x\"\n}\n"},
		{"duplicates: the first is set, the rest removed", "{\n  \"pluginDirs\": [\"a\"],\n  \"name\": \"x\",\n  \"pluginDirs\": [\"b\"]\n}\n", "", []string{"c"},
			"{\n  \"pluginDirs\": [\"c\"],\n  \"name\": \"x\"\n}\n"},
		{"a slot: only its object changes", crlf("{\n\t\"name\": \"t\",\n\t\"agents\": [\n\t\t{\n\t\t\t\"ref\": \"a\"\n\t\t},\n\t\t{\"ref\": \"b\", \"pluginDirs\": [\"old\"]}\n\t],\n\t\"x\": {\"ref\": \"a\"}\n}\n"),
			"/agents/0", dirs,
			crlf("{\n\t\"name\": \"t\",\n\t\"agents\": [\n\t\t{\n\t\t\t\"ref\": \"a\",\n\t\t\t\"pluginDirs\": [\n\t\t\t\t\"plugins/a\",\n\t\t\t\t\"r&d/<b>\"\n\t\t\t]\n\t\t},\n\t\t{\"ref\": \"b\", \"pluginDirs\": [\"old\"]}\n\t],\n\t\"x\": {\"ref\": \"a\"}\n}\n")},
		{"a slot on one line in an indented file stays on one line", "{\n  \"agents\": [\n    {\"ref\": \"a\"},\n    {\"ref\": \"b\", \"pluginDirs\": [\"old\"], \"label\": \"l\"}\n  ]\n}\n",
			"/agents/1", nil,
			"{\n  \"agents\": [\n    {\"ref\": \"a\"},\n    {\"ref\": \"b\", \"label\": \"l\"}\n  ]\n}\n"},
		{"a slot on one line: appended on its line", "{\n  \"agents\": [\n    {\"ref\": \"a\"}\n  ]\n}\n", "/agents/0", []string{"p"},
			"{\n  \"agents\": [\n    {\"ref\": \"a\", \"pluginDirs\": [\"p\"]}\n  ]\n}\n"},
		{"an empty slot object in an indented file", "{\n  \"agents\": [\n    {}\n  ]\n}\n", "/agents/0", []string{"p"},
			"{\n  \"agents\": [\n    {\n      \"pluginDirs\": [\n        \"p\"\n      ]\n    }\n  ]\n}\n"},
		{"escapes, numbers and odd spacing elsewhere kept", "{\"a\" :  \"\\u003c\\\"}\" , \"b\":1e3,\n\"pluginDirs\" : [ \"x\" ] }", "", []string{"y"},
			"{\"a\" :  \"\\u003c\\\"}\" , \"b\":1e3,\n\"pluginDirs\" : [\"y\"] }"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := SetMember([]byte(c.in), c.ptr, "pluginDirs", c.value)
			if err != nil {
				t.Fatalf("SetMember: %v", err)
			}
			if string(got) != c.want {
				t.Errorf("SetMember =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestSetMemberRefuses(t *testing.T) {
	for _, c := range []struct{ in, ptr, want string }{
		{`{"a": 1`, "", "not valid JSON"},
		{`[1]`, "", "not an object"},
		{`{"agents": [{"ref": "a"}]}`, "/agents/1", "/agents/1 does not exist"},
		{`{"agents": [{"ref": "a"}]}`, "/agents/x", "not an index"},
		{`{"agents": [{"ref": "a"}]}`, "/other/0", "/other does not exist"},
		{`{"agents": ["a"]}`, "/agents/0", "not an object"},
	} {
		if _, err := SetMember([]byte(c.in), c.ptr, "k", 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetMember(%s, %q) = %v; want an error containing %q", c.in, c.ptr, err, c.want)
		}
	}
}

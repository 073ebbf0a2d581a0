package skill

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// sameTree compares what the checks read of a node tree: kind, tag, value, position.
func sameTree(a, b *yaml.Node) error {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || a.Line != b.Line || a.Column != b.Column || a.Style != b.Style || len(a.Content) != len(b.Content) {
		return fmt.Errorf("fast %+v\nyaml %+v", *a, *b)
	}
	for i := range a.Content {
		if err := sameTree(a.Content[i], b.Content[i]); err != nil {
			return err
		}
	}
	return nil
}

var fastCases = []struct {
	fm   string
	fast bool // whether the fast path must take it
}{
	{"name: pdf-tools\ndescription: Extract text, fill forms, merge files. Use when handling PDFs.\n", true},
	{"name: a\ndescription: x\nlicense: Apache-2.0\nmetadata:\n  author: example-org\n  version: \"1.0\"\n", true},
	{"name: a\ndescription: 'single quoted'\npaths:\n  - data\n  - references/schema.json\n", true},
	{"name: a\nallowed-tools: Bash(git:*) Read\n", true},
	{"name: a\ndescription: Use when: things\n", false},
	{"name: a\ndisable-model-invocation: true\n", false},
	{"name: a\nmetadata:\n  version: 1.0\n", false},
	{"name: a # comment\n", false},
	{"name: a\ndescription: >\n  folded\n", false},
	{"name: a\npaths:\n", false},
	{"name: a\n\ndescription: b\n", false},
	{"name: \"a\\n\"\n", false},
	{"name: [a, b]\n", false},
	{"name: a\r\n", false},
	{"- a\n- b\n", false},
	{"name: a\nname: b\n", true}, // repeated keys are found by checkTree on either tree
}

func TestFastYAML(t *testing.T) {
	for _, tc := range fastCases {
		got, ok := fastYAML(tc.fm, nil)
		if ok != tc.fast {
			t.Errorf("fastYAML(%q) ok = %v, want %v", tc.fm, ok, tc.fast)
		}
		if !ok {
			continue
		}
		var want yaml.Node
		if err := yaml.Unmarshal([]byte(tc.fm), &want); err != nil {
			t.Fatalf("yaml.v3 refuses %q: %v", tc.fm, err)
		}
		if err := sameTree(got, &want); err != nil {
			t.Errorf("fastYAML(%q) differs from yaml.v3:\n%v", tc.fm, err)
		}
	}
}

// FuzzFastYAML: whatever the fast path accepts, yaml.v3 parses to the same tree.
func FuzzFastYAML(f *testing.F) {
	for _, tc := range fastCases {
		f.Add(tc.fm)
	}
	f.Add("name: a\nmetadata:\n  k: v\ndescription: d\npaths:\n  - x\n")
	f.Fuzz(func(t *testing.T, fm string) {
		got, ok := fastYAML(fm, nil)
		if !ok {
			return
		}
		var want yaml.Node
		if err := yaml.Unmarshal([]byte(fm), &want); err != nil {
			t.Fatalf("fast path accepted %q, which yaml.v3 refuses: %v", fm, err)
		}
		if err := sameTree(got, &want); err != nil {
			t.Fatalf("fastYAML(%q) differs from yaml.v3:\n%v", fm, err)
		}
	})
}

func BenchmarkFrontmatter(b *testing.B) {
	fm := []byte(strings.Repeat("", 0) + "name: pdf-tools\ndescription: Extract text. Use when handling PDFs.\nlicense: MIT\nmetadata:\n  author: bench\n  version: \"1.0\"\n")
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fastYAML(string(fm), nil) // with the copy Parse makes
		}
	})
	b.Run("yaml.v3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var n yaml.Node
			yaml.Unmarshal(fm, &n)
		}
	})
}

// FastMap gives what yaml.Unmarshal gives, for every block it accepts.
func TestFastMapMatchesYAML(t *testing.T) {
	for _, fm := range []string{
		"name: a\ndescription: b c\n",
		"name: a\nmetadata:\n  author: x\n  version: \"1.0\"\npaths:\n  - refs\n  - more\n",
		"name: a\nname: b\n",
		"description: 'quoted'\n",
	} {
		got, ok := FastMap([]byte(fm))
		var want map[string]any
		err := yaml.Unmarshal([]byte(fm), &want)
		if !ok {
			if err == nil && !strings.Contains(fm, "name: a\nname") {
				t.Logf("FastMap left %q to yaml.v3", fm)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("FastMap(%q) = %v, yaml.v3 = %v (%v)", fm, got, want, err)
		}
	}
}

func FuzzFastMap(f *testing.F) {
	f.Add([]byte("name: a\ndescription: b\nmetadata:\n  k: v\n"))
	f.Fuzz(func(t *testing.T, fm []byte) {
		got, ok := FastMap(fm)
		if !ok {
			return
		}
		var want map[string]any
		if err := yaml.Unmarshal(fm, &want); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("FastMap(%q) = %v, yaml.v3 = %v (%v)", fm, got, want, err)
		}
	})
}

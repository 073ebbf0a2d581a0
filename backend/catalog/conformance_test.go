package catalog

import (
	"encoding/json"
	"github.com/plugboard/plugboard/backend/testhome"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// sharedDir finds ../shared beside the repository (or $PLUGBOARD_SHARED).
func sharedDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("PLUGBOARD_SHARED"); d != "" {
		return d
	}
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

type peerCase struct {
	Case   string `json:"case"`
	Source string `json:"source"`
	Expect struct {
		PluginValid  *bool     `json:"plugin_valid"`
		ValidSkills  *[]string `json:"valid_skills"`
		MCPEnabled   *bool     `json:"mcp_enabled"`
		ValidServers *[]string `json:"valid_servers"`
		Notes        string    `json:"notes"`
	} `json:"expect"`
	Alignment string `json:"spec_alignment"`
}

// TestPeerConformance runs every peer case marked "agrees" in
// ../shared/conformance/peer/*/EXPECTED.json against Inspect.
func TestPeerConformance(t *testing.T) {
	peer := filepath.Join(sharedDir(t), "conformance", "peer")
	sets, _ := filepath.Glob(filepath.Join(peer, "*", "EXPECTED.json"))
	if len(sets) == 0 {
		testhome.CannotRun(t, "no peer conformance fixtures at %s (the shared folder is absent)", peer)
	}
	ran := 0
	for _, set := range sets {
		data, err := os.ReadFile(set)
		if err != nil {
			t.Fatal(err)
		}
		var cases []peerCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", set, err)
		}
		for _, pc := range cases {
			if pc.Alignment != "agrees" {
				continue
			}
			ran++
			name := filepath.Base(filepath.Dir(set)) + "/" + pc.Case
			t.Run(name, func(t *testing.T) {
				p := Inspect(filepath.Join(filepath.Dir(set), filepath.FromSlash(pc.Case)), t.TempDir())
				e := pc.Expect
				if e.PluginValid != nil && p.Valid != *e.PluginValid {
					t.Errorf("plugin valid = %v, want %v (%s)\nissues: %v", p.Valid, *e.PluginValid, e.Notes, p.AllIssues())
				}
				if e.ValidSkills != nil {
					var got []string
					for _, s := range p.Skills {
						if s.Valid {
							got = append(got, s.Name)
						}
					}
					if !sameSet(got, *e.ValidSkills) {
						t.Errorf("valid skills = %q, want %q (%s)\nissues: %v", got, *e.ValidSkills, e.Notes, p.AllIssues())
					}
				}
				if e.MCPEnabled != nil {
					got := p.MCP != nil && p.MCP.Valid
					if got != *e.MCPEnabled {
						t.Errorf("mcp enabled = %v, want %v (%s)\nissues: %v", got, *e.MCPEnabled, e.Notes, p.AllIssues())
					}
				}
				if e.ValidServers != nil {
					var got []string
					if p.MCP != nil && p.MCP.Valid {
						for _, s := range p.MCP.Servers {
							if s.Valid {
								got = append(got, s.Name)
							}
						}
					}
					if !sameSet(got, *e.ValidServers) {
						t.Errorf("valid servers = %q, want %q (%s)\nissues: %v", got, *e.ValidServers, e.Notes, p.AllIssues())
					}
				}
			})
		}
	}
	if ran < 50 {
		t.Errorf("ran %d agreeing peer cases; expected the whole set (at least 50)", ran)
	}
	t.Logf("ran %d agreeing peer cases", ran)
}

func sameSet(a, b []string) bool {
	a, b = append([]string{}, a...), append([]string{}, b...)
	sort.Strings(a)
	sort.Strings(b)
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

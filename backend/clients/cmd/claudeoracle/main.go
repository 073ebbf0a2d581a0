// Command claudeoracle compares Plugboard's Claude load model with the real claude on
// every plugin folder you point it at, and prints each difference:
//
//	go run ./backend/clients/cmd/claudeoracle [-claude PATH] [-list FILE] [DIR...]
//
// Each DIR is one plugin folder; -list reads more, one per line (a corpus you collected:
// it stays outside the repository). -skills FILE checks standalone skill folders
// instead, placed in a private ~/.claude/skills in batches of unique names (with -pi BIN,
// given to that PI with --skill). The exit
// status is 1 when any folder differs.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/clients/oracle"
)

func main() {
	bin := flag.String("claude", "build/agents/node_modules/claude-code-2.1.328/bin/claude.exe", "the claude executable (default: the newest pinned)")
	list := flag.String("list", "", "a file of plugin folders, one per line")
	skillsFile := flag.String("skills", "", "a file of standalone skill folders, one per line")
	cacheFile := flag.String("cache", "", "a JSON file of the real claude's answers: read first, written as it goes (a model change needs no new runs)")
	pi := flag.String("pi", "", "with -skills: give the skill folders to this PI (--skill) instead of claude")
	flag.Parse()
	dirs := append(flag.Args(), readList(*list)...)
	if *skillsFile != "" && *pi != "" {
		os.Exit(checkSkillsPI(*pi, readList(*skillsFile)))
	}
	if *skillsFile != "" {
		os.Exit(checkSkills(*bin, readList(*skillsFile)))
	}
	differ := 0
	version := ""
	cache := map[string]oracle.Init{}
	if *cacheFile != "" {
		if b, err := os.ReadFile(*cacheFile); err == nil {
			_ = json.Unmarshal(b, &cache)
		}
	}
	for _, d := range dirs {
		got, ok := cache[d]
		var err error
		if !ok {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			got, err = oracle.Claude(ctx, *bin, d)
			cancel()
			if err == nil && *cacheFile != "" {
				cache[d] = got
				b, _ := json.Marshal(cache)
				_ = os.WriteFile(*cacheFile, b, 0o644)
			}
		}
		if err != nil {
			fmt.Printf("ERROR %s: %v\n", d, err)
			differ++
			continue
		}
		version = got.Version
		v := clients.JudgeClaudeAs(d, got.Version) // the rules of the release that answered
		var why []string
		if v.Loads != got.Loads {
			why = append(why, fmt.Sprintf("loads: model %v, claude %v (%s)", v.Loads, got.Loads, v.Why))
		}
		if got.Loads && v.Plugin != got.Plugin {
			why = append(why, fmt.Sprintf("plugin: model %q, claude %q", v.Plugin, got.Plugin))
		}
		if !slices.Equal(v.Alone(), got.Skills) {
			why = append(why, fmt.Sprintf("skills: model %v, claude %v", v.Alone(), got.Skills))
		}
		agents := []string{}
		for _, a := range v.Agents {
			agents = append(agents, a.Name)
		}
		slices.Sort(agents)
		if got.Loads && !slices.Equal(agents, append([]string{}, got.Agents...)) {
			why = append(why, fmt.Sprintf("agents: model %v, claude %v", agents, got.Agents))
		}
		if len(why) > 0 {
			differ++
			fmt.Printf("DIFF %s\n  %s\n", d, strings.Join(why, "\n  "))
		}
	}
	fmt.Printf("%d folders, %d agree, %d differ (claude %s)\n", len(dirs), len(dirs)-differ, differ, version)
	if differ > 0 {
		os.Exit(1)
	}
}

// readList reads one path per line; "" reads nothing.
func readList(file string) []string {
	if file == "" {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// checkSkills compares what Plugboard says Claude lists of each standalone skill folder
// with what the real claude lists when the folders sit in ~/.claude/skills.
func checkSkills(bin string, dirs []string) int {
	batches := uniqueBatches(dirs, filepath.Base) // claude names a user skill by its folder
	differ, unclear := 0, 0
	for _, b := range batches {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		got, builtins, err := oracle.ClaudeUserSkills(ctx, bin, b)
		cancel()
		if err != nil {
			fmt.Printf("ERROR batch of %d: %v\n", len(b), err)
			return 2
		}
		listed := map[string]bool{}
		for _, s := range got {
			listed[s] = true
		}
		for _, d := range b {
			if slices.Contains(builtins, filepath.Base(d)) {
				unclear++ // one listing entry for the built-in and the user's skill
				continue
			}
			v := clients.JudgeSkill(d).Claude
			want := listed[filepath.Base(d)]
			if v.Loads != want {
				differ++
				fmt.Printf("DIFF %s\n  model lists it: %v (%v), claude: %v\n", d, v.Loads, v.Dropped, want)
			}
		}
	}
	fmt.Printf("%d skill folders in %d batches, %d agree, %d differ, %d not checkable (named like a built-in skill)\n", len(dirs), len(batches), len(dirs)-differ-unclear, differ, unclear)
	if differ > 0 {
		return 1
	}
	return 0
}

// uniqueBatches splits dirs into batches of at most 400 with no two folders of one name
// (a client keeps one skill of a name), the name a folder's skill gets being name(dir).
func uniqueBatches(dirs []string, name func(string) string) [][]string {
	var batches [][]string
	var names []map[string]bool
	for _, d := range dirs {
		n := name(d)
		placed := false
		for i := range batches {
			if !names[i][n] && len(batches[i]) < 400 {
				batches[i] = append(batches[i], d)
				names[i][n] = true
				placed = true
				break
			}
		}
		if !placed {
			batches = append(batches, []string{d})
			names = append(names, map[string]bool{n: true})
		}
	}
	return batches
}

// checkSkillsPI gives the standalone skill folders dirs to the PI at bin (--skill, in
// batches of unique names) and compares the skills it lists from each folder with the PI
// model's verdict (clients.JudgeSkill).
func checkSkillsPI(bin string, dirs []string) int {
	// PI names a skill by its frontmatter's name: the model's name, or the folder's
	batches := uniqueBatches(dirs, func(d string) string {
		if v := clients.JudgeSkill(d).PI; len(v.Skills) == 1 {
			return v.Skills[0]
		}
		return filepath.Base(d)
	})
	differ, listed := 0, 0
	for _, b := range batches {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		got, err := oracle.PIEach(ctx, bin, b)
		cancel()
		if err != nil {
			fmt.Printf("ERROR batch of %d: %v\n", len(b), err)
			return 2
		}
		for _, names := range got {
			listed += len(names)
		}
		for _, d := range b {
			abs, _ := filepath.Abs(d)
			v := clients.JudgeSkill(d).PI
			if names := got[abs]; !slices.Equal(v.Skills, names) && !(len(v.Skills) == 0 && len(names) == 0) {
				differ++
				fmt.Printf("DIFF %s\n  model lists %v (%v), pi %v\n", d, v.Skills, v.Dropped, names)
			}
		}
	}
	fmt.Printf("%d skill folders in %d batches, %d skills listed by pi, %d agree, %d differ\n", len(dirs), len(batches), listed, len(dirs)-differ, differ)
	if differ > 0 {
		return 1
	}
	return 0
}

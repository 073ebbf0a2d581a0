// Package clientask asks the agent clients installed on this machine what they load
// from each package of a catalog, and sets each answer beside the model's verdict
// (backend/clients): the model says what a client release should load; the installed
// client says what it does.
//
// Asking runs the real client offline and without running any package code
// (backend/clients/oracle), which costs a few hundred milliseconds a package, so the
// answers are kept in SQLite (store.ClientAnswer) by client, version and the package's
// content digest: a package is asked once per content and client release, and a scan
// that changed nothing asks nothing. The desktop app and `plugboard watch` ask in the
// background after a scan, with progress, never holding the catalog back; `plugboard
// clients verify` asks in the foreground and prints every disagreement.
package clientask

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/clients/oracle"
	"github.com/plugboard/plugboard/backend/ctree"
	"github.com/plugboard/plugboard/backend/installed"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/store"
)

// Client is one installed client to ask: its name (clients.Claude), its executable and
// its version.
type Client struct {
	Name    string
	Bin     string
	Version string
}

// Answer is what one installed client release loads from one package folder.
type Answer struct {
	Client  string   `json:"client"`
	Version string   `json:"version"`
	Loads   bool     `json:"loads"`
	Plugin  string   `json:"plugin,omitempty"`
	Skills  []string `json:"skills"`
	Agents  []string `json:"agents"`
	// Warnings are what the client said of the package while loading it (2.1.328:
	// plugin_warnings), for the reason of a difference.
	Warnings []string `json:"warnings,omitempty"`
	// Hidden are the skills the client loads but keeps out of the model's prompt (codex).
	Hidden []string `json:"hidden,omitempty"`
}

// Result is one package's answer beside the model's verdict.
type Result struct {
	Client string `json:"client"` // the client asked (clients.Claude)
	Plugin string `json:"plugin"` // the catalog id; "" for a standalone skill
	// Skill is a standalone skill's SKILL.md (catalog.SkillEntry.Path), for an answer
	// about a skill folder in the user's skill folders (AskSkills); "" for a package.
	Skill string `json:"skill,omitempty"`
	Path  string `json:"path"` // the package or skill folder
	// Answer is the installed client's; nil when it could not be asked (Error says why).
	Answer *Answer `json:"answer,omitempty"`
	Error  string  `json:"error,omitempty"`
	// Cached is true when the answer was recorded before (same content, same release).
	Cached bool `json:"cached"`
	// Differs says, one sentence each, where the model and the client disagree; empty
	// when they agree.
	Differs []string `json:"differs"`
}

// Progress is how far an Ask has come: Done of Total packages answered, Asked of them by
// running the client (the others from the cache).
type Progress struct {
	Client  string `json:"client"`
	Version string `json:"version"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
	Asked   int    `json:"asked"`
}

// Asker asks installed clients about a catalog's packages.
type Asker struct {
	// Store keeps the answers; nil asks every package every time.
	Store *store.Store
	// Workers bounds the clients run at once; 0 means 2 (each run is a whole client start).
	Workers int
	// Timeout bounds one client run; 0 means a minute.
	Timeout time.Duration
}

// batchMax bounds the folders of one client run: a run costs about the same for one
// folder or a hundred (claude 2.1.328: 0.4 s either way here), and a smaller batch shows
// progress sooner.
const batchMax = 50

// Ask asks c about every package of cat (a package whose folder cannot be read gets an
// Error) and returns one Result per package, in the catalog's order. Packages answered
// before (same content, same release) come from the store; the others are asked in
// batches, one client run for up to batchMax packages, except a package that needs
// other plugins or that the model says does not load, which is asked alone; so is a
// package a batch could not tell apart from another, or that the batch did not load.
// progress, when set, is called after each package, one call at a time. Claude, Codex
// and PI can be asked (runners).
func (a *Asker) Ask(ctx context.Context, c Client, cat *catalog.Catalog, progress func(Progress)) ([]Result, error) {
	run, ok := runners[c.Name]
	if !ok {
		return nil, fmt.Errorf("asking %s what it loads is not supported yet; claude, codex and pi are", c.Name)
	}
	out := make([]Result, len(cat.Plugins))
	digests := make([]string, len(cat.Plugins))
	var mu sync.Mutex
	p := Progress{Client: c.Name, Version: c.Version, Total: len(cat.Plugins)}
	finish := func(i int, r Result, asked bool) {
		mu.Lock()
		defer mu.Unlock()
		r.Client = c.Name
		out[i] = r
		p.Done++
		if asked {
			p.Asked++
		}
		if progress != nil {
			progress(p)
		}
	}
	// First what is known without running the client: the digests, the stored answers.
	var pending []int
	each(len(cat.Plugins), 4, func(i int) {
		pl := &cat.Plugins[i]
		r := Result{Plugin: pl.ID, Path: pl.Path, Differs: []string{}}
		d, err := Digest(pl.Path)
		if err != nil {
			r.Error = fmt.Sprintf("the package could not be read to ask %s about it: %v", c.Name, err)
			finish(i, r, false)
			return
		}
		digests[i] = d
		if ans, ok := a.stored(ctx, c, d); ok {
			r.Answer, r.Cached, r.Differs = ans, true, Compare(pl, ans)
			finish(i, r, false)
			return
		}
		mu.Lock()
		pending = append(pending, i)
		mu.Unlock()
	})
	slices.Sort(pending)
	jobs := batches(cat, pending, run)
	workers := a.Workers
	if workers <= 0 {
		workers = 2
	}
	each(len(jobs), workers, func(j int) {
		if ctx.Err() != nil {
			return
		}
		answers, alone := a.askBatch(ctx, c, run, cat, jobs[j])
		for _, i := range alone {
			in, err := a.ask(ctx, func(ctx context.Context) (oracle.Init, error) { return run.one(ctx, c.Bin, cat.Plugins[i].Path) })
			if err != nil {
				pl := &cat.Plugins[i]
				finish(i, Result{Plugin: pl.ID, Path: pl.Path, Differs: []string{}, Error: fmt.Sprintf("%s %s could not be asked: %v", c.Name, c.Version, err)}, true)
				continue
			}
			answers[i] = in
		}
		for _, i := range jobs[j] {
			in, ok := answers[i]
			if !ok {
				continue // an error, finished above
			}
			pl := &cat.Plugins[i]
			ans := &Answer{Client: c.Name, Version: in.Version, Loads: in.Loads, Plugin: in.Plugin, Skills: nonNil(in.Skills), Agents: nonNil(in.Agents), Warnings: in.Warnings, Hidden: in.Hidden}
			if ans.Version == "" {
				ans.Version = c.Version
			}
			a.keep(ctx, c, digests[i], ans)
			finish(i, Result{Plugin: pl.ID, Path: pl.Path, Answer: ans, Differs: Compare(pl, ans)}, true)
		}
	})
	return out, ctx.Err()
}

// batches groups the packages to ask: those runner.names accepts, under names no other
// one of the group takes, up to batchMax a run; every other package is a group of its
// own.
func batches(cat *catalog.Catalog, pending []int, run runner) [][]int {
	var jobs [][]int
	var cur []int
	taken := map[string]bool{}
	for _, i := range pending {
		pl := &cat.Plugins[i]
		names, ok := run.names(pl)
		if ok && slices.ContainsFunc(names, func(n string) bool { return taken[n] }) {
			ok = false
		}
		if !ok {
			jobs = append(jobs, []int{i})
			continue
		}
		for _, n := range names {
			taken[n] = true
		}
		cur = append(cur, i)
		if len(cur) == batchMax {
			jobs, cur, taken = append(jobs, cur), nil, map[string]bool{}
		}
	}
	if len(cur) > 0 {
		jobs = append(jobs, cur)
	}
	return jobs
}

// askBatch asks about the packages of one group in one run and returns the answers it
// could give, and the packages to ask alone: one the run could not tell apart from
// another, or did not load (unless runner.ownRefusals: a batch may hide it behind
// another of the same name, which only a run of its own tells). A group of one is
// asked alone.
func (a *Asker) askBatch(ctx context.Context, c Client, run runner, cat *catalog.Catalog, group []int) (map[int]oracle.Init, []int) {
	answers := map[int]oracle.Init{}
	if len(group) == 1 {
		return answers, group
	}
	dirs := make([]string, len(group))
	for k, i := range group {
		dirs[k] = cat.Plugins[i].Path
	}
	var got map[string]oracle.Init
	_, err := a.ask(ctx, func(ctx context.Context) (oracle.Init, error) {
		var err error
		got, err = run.many(ctx, c.Bin, dirs)
		return oracle.Init{}, err
	})
	if err != nil {
		return answers, group // each alone: one broken folder must not fail the others
	}
	var alone []int
	for k, i := range group {
		in, ok := got[dirs[k]]
		if !ok || (!in.Loads && !run.ownRefusals) {
			alone = append(alone, i)
			continue
		}
		answers[i] = in
	}
	return answers, alone
}

// ask runs one client run under the Asker's time limit.
func (a *Asker) ask(ctx context.Context, run func(context.Context) (oracle.Init, error)) (oracle.Init, error) {
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return run(ctx)
}

// answerFormat prefixes the digest an answer is kept under: an answer kept in an older
// form (before Hidden) is not read back, the package is asked again.
const answerFormat = "a2:"

// stored is the answer kept for content digest, if any.
func (a *Asker) stored(ctx context.Context, c Client, digest string) (*Answer, bool) {
	if a.Store == nil {
		return nil, false
	}
	b, _, ok, err := a.Store.ClientAnswer(ctx, c.Name, c.Version, answerFormat+digest)
	if err != nil || !ok {
		return nil, false
	}
	var ans Answer
	if json.Unmarshal(b, &ans) != nil {
		return nil, false
	}
	return &ans, true
}

// keep stores an answer; a failure to store costs only a second asking later.
func (a *Asker) keep(ctx context.Context, c Client, digest string, ans *Answer) {
	if a.Store == nil {
		return
	}
	if b, err := json.Marshal(ans); err == nil {
		_ = a.Store.PutClientAnswer(ctx, c.Name, c.Version, answerFormat+digest, b, time.Now())
	}
}

// each calls f(0) … f(n-1) on up to workers goroutines and waits for them.
func each(n, workers int, f func(int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// Digest is the content digest of the package folder dir: ctree's sum over every path,
// execute bit and file content, and the folder's own name (a plugin without a manifest
// is named after it). A link that leaves the folder, a FIFO or a dangling link is left
// out of the sum as the walk leaves it out.
func Digest(dir string) (string, error) {
	root, err := pathsafe.Root(dir)
	if err != nil {
		return "", err
	}
	t, err := ctree.Walk(root, root, ctree.Options{MaxFiles: 20000, MaxBytes: 512 << 20,
		Leave: []string{ctree.KindOutside, ctree.KindSpecial, ctree.KindLoop, ctree.KindDangling, ctree.KindUnreadable}})
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(filepath.Base(dir) + "\n" + t.Sum))
	return "sha256:" + hex.EncodeToString(h[:]), nil
}

// Compare says where the model's verdict on p for the answer's client and the installed
// client's answer disagree, one sentence each: whether it loads, under which name, which
// skills and which agents.
func Compare(p *catalog.Plugin, a *Answer) []string {
	run, known := runners[a.Client]
	if p.Clients == nil || !known {
		return []string{}
	}
	return compareVerdict(run.verdict(p.Clients), a)
}

// compareVerdict says where the model's verdict v and the installed client's answer
// disagree, one sentence each.
func compareVerdict(v clients.Verdict, a *Answer) []string {
	out := []string{}
	who := a.Client + " " + a.Version + " here"
	why := ""
	if len(a.Warnings) > 0 {
		why = ": " + strings.Join(a.Warnings, "; ")
	}
	switch {
	case v.Loads && !a.Loads:
		return append(out, fmt.Sprintf("the model says it loads (%s); %s skips it%s", v.Why, who, why))
	case !v.Loads && a.Loads:
		as := ""
		if a.Plugin != "" {
			as = " as " + a.Plugin
		}
		return append(out, fmt.Sprintf("the model says it does not load (%s); %s loads it%s with %s", v.Why, who, as, count(len(a.Skills), "skill")))
	case !a.Loads:
		return out
	}
	if v.Plugin != a.Plugin {
		out = append(out, fmt.Sprintf("the model names it %s; %s names it %s", v.Plugin, who, a.Plugin))
	}
	if only, extra := setDiff(v.Alone(), a.Skills); len(only)+len(extra) > 0 {
		out = append(out, fmt.Sprintf("skills: %s", listDiff(only, extra, who)))
	}
	var agents []string
	for _, c := range v.Agents {
		agents = append(agents, c.Name)
	}
	if only, extra := setDiff(agents, a.Agents); len(only)+len(extra) > 0 {
		out = append(out, fmt.Sprintf("agents: %s", listDiff(only, extra, who)))
	}
	if only, extra := setDiff(v.NotInPrompt(), a.Hidden); len(only)+len(extra) > 0 {
		out = append(out, fmt.Sprintf("kept out of the model's prompt: %s", listDiff(only, extra, who)))
	}
	return out
}

// setDiff returns what only model has and what only client has (each sorted, once).
func setDiff(model, client []string) (onlyModel, onlyClient []string) {
	for _, s := range model {
		if !slices.Contains(client, s) && !slices.Contains(onlyModel, s) {
			onlyModel = append(onlyModel, s)
		}
	}
	for _, s := range client {
		if !slices.Contains(model, s) && !slices.Contains(onlyClient, s) {
			onlyClient = append(onlyClient, s)
		}
	}
	slices.Sort(onlyModel)
	slices.Sort(onlyClient)
	return onlyModel, onlyClient
}

func listDiff(onlyModel, onlyClient []string, who string) string {
	var parts []string
	if len(onlyModel) > 0 {
		parts = append(parts, "the model lists "+strings.Join(onlyModel, ", ")+", which "+who+" does not")
	}
	if len(onlyClient) > 0 {
		parts = append(parts, who+" lists "+strings.Join(onlyClient, ", ")+", which the model does not")
	}
	return strings.Join(parts, "; ")
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Versions are the installed clients' versions by the name the client models use
// (catalog.Options.Installed): a client found is in it, with "" for an unknown version;
// Cursor's CLI stands for Cursor.
func Versions(found []installed.Client) map[string]string {
	out := map[string]string{}
	for _, c := range found {
		if !c.Found {
			continue
		}
		name := c.Name
		if name == installed.CursorAgent {
			name = clients.Cursor
		}
		out[name] = c.Version
	}
	return out
}

// Askable are the installed clients Ask can ask: found, of a known version, and a
// client it knows how to ask (runners).
func Askable(found []installed.Client) []Client {
	var out []Client
	for _, c := range found {
		if _, ok := runners[c.Name]; ok && c.Found && c.Version != "" {
			out = append(out, Client{Name: c.Name, Bin: c.Path, Version: c.Version})
		}
	}
	return out
}

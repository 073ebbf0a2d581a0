package devlink

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recordedCopies reads the registry's copies as the file holds them.
func recordedCopies(t *testing.T, pbHome string) map[string]recordedCopy {
	t.Helper()
	var r struct {
		Copies map[string]recordedCopy `json:"copies"`
	}
	data, err := os.ReadFile(filepath.Join(pbHome, "state", "links.json"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err == nil {
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("links.json: %v\n%s", err, data)
		}
	}
	return r.Copies
}

// recordedCopy is a copy's entry in links.json, as the file spells it.
type recordedCopy struct {
	Source string `json:"source"`
	ID     string `json:"id"`
}

// syncLikeWatch does what the live catalog does when a source changes (reload.syncCopies):
// it syncs every copy List reports, and returns the errors.
func syncLikeWatch(o Options) []error {
	l, err := List(o)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, l := range l {
		if l.Mode != ModeCopy || !l.SourceExists {
			continue
		}
		so := Options{Home: o.Home, PlugboardHome: o.PlugboardHome, Into: l.Into}
		if err := Sync(l.Name, so); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// A real folder in $PLUGBOARD_HOME/plugins that ships its own marker naming a source —
// the marker written by an older Plugboard, or one with an id of its own — is not a copy
// Plugboard made: unlink refuses it naming the folder and the fix, the sync watch does
// leaves it as it is, links does not list it, link --copy does not take it over, and no
// refusal writes the registry.
func TestMarkerFolderNotInRegistryIsLeftAlone(t *testing.T) {
	for _, tc := range []struct{ name, marker string }{
		{"marker of an older plugboard", `{"tool": "plugboard link", "source": %q, "mode": "copy"}`},
		{"marker with an id", `{"tool": "plugboard link", "source": %q, "mode": "copy", "id": "0123456789abcdef0123456789abcdef"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, pkg := setup(t)
			writeFile(t, filepath.Join(pkg, "skills", "wave", "SKILL.md"), skillOf("wave")) // what a sync would copy in
			shipped := filepath.Join(o.PlugboardHome, "plugins", "shipped")
			writeFile(t, filepath.Join(shipped, "plugin.json"), "{"+schemaV1+`, "name": "shipped"}`)
			writeFile(t, filepath.Join(shipped, "skills", "own", "SKILL.md"), skillOf("own")) // what a sync would remove
			writeFile(t, filepath.Join(shipped, MarkerFile), fmt.Sprintf(tc.marker, pkg))
			before := snapshot(t, o.PlugboardHome)
			homeUntouched := func(what string) {
				t.Helper()
				if after := snapshot(t, o.PlugboardHome); after != before {
					t.Errorf("%s changed the home:\n%s\nwas\n%s", what, after, before)
				}
			}

			_, err := Unlink("shipped", Options{Home: o.Home, PlugboardHome: o.PlugboardHome})
			if !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), shipped) || !strings.Contains(err.Error(), "plugboard link --copy "+pkg+" --name shipped") {
				t.Errorf("Unlink(shipped) error = %v, want ErrNotOurs naming %s and the fix", err, shipped)
			}
			if err := Sync("shipped", o); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), shipped) {
				t.Errorf("Sync(shipped) error = %v, want ErrNotOurs naming %s", err, shipped)
			}
			if errs := syncLikeWatch(o); len(errs) != 0 {
				t.Errorf("the sync of every listed copy: %v", errs)
			}
			for _, l := range list(t, o) {
				t.Errorf("List shows %s (%s), a folder Plugboard did not make", l.Name, l.Mode)
			}
			homeUntouched("Unlink, Sync and List")
			before = snapshot(t, shipped)
			co := o
			co.Copy, co.Name = true, "shipped"
			if _, err := Link(pkg, co); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), shipped) || !strings.Contains(err.Error(), "not made by Plugboard") {
				t.Errorf("Link --copy onto shipped: error = %v, want ErrExists naming %s as not Plugboard's", err, shipped)
			}
			if after := snapshot(t, shipped); after != before {
				t.Errorf("Link --copy changed the folder:\n%s\nwas\n%s", after, before)
			}
			if c := recordedCopies(t, o.PlugboardHome); len(c) != 0 {
				t.Errorf("a refused Link --copy recorded %v", c)
			}
		})
	}
}

// A copy the registry records whose folder was later replaced (deleted by hand, the name
// taken by a folder with a marker of its own) is not synced or unlinked either.
func TestRecordedCopyReplacedIsLeftAlone(t *testing.T) {
	o, pkg := setup(t)
	o.Copy = true
	r, err := Link(pkg, o)
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(r.Dest)
	writeFile(t, filepath.Join(r.Dest, "plugin.json"), "{"+schemaV1+`, "name": "my-plugin"}`)
	writeFile(t, filepath.Join(r.Dest, "skills", "own", "SKILL.md"), skillOf("own"))
	writeFile(t, filepath.Join(r.Dest, MarkerFile), fmt.Sprintf(`{"tool": "plugboard link", "source": %q, "mode": "copy", "id": "forged"}`, pkg))
	before := snapshot(t, r.Dest)
	if _, err := Unlink("my-plugin", o); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), r.Dest) || !strings.Contains(err.Error(), "delete it yourself") {
		t.Errorf("Unlink(replaced copy) error = %v, want ErrNotOurs naming %s and the fix", err, r.Dest)
	}
	if err := Sync("my-plugin", o); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Sync(replaced copy) error = %v, want ErrNotOurs", err)
	}
	if _, err := Link(pkg, o); !errors.Is(err, ErrExists) {
		t.Errorf("Link --copy onto the replaced copy: error = %v, want ErrExists", err)
	}
	if len(list(t, o)) != 0 {
		t.Errorf("List shows the replaced copy: %+v", list(t, o))
	}
	if after := snapshot(t, r.Dest); after != before {
		t.Errorf("the folder changed:\n%s\nwas\n%s", after, before)
	}
}

// A copy made by link --copy is recorded (source and the id its marker carries), listed,
// synced, and unlinked, which forgets it.
func TestCopyIsRecordedListedSyncedUnlinked(t *testing.T) {
	o, pkg := setup(t)
	o.Copy = true
	r, err := Link(pkg, o)
	if err != nil || r.Mode != ModeCopy {
		t.Fatalf("Link --copy = %+v, %v", r, err)
	}
	var m struct {
		ID string `json:"id"`
	}
	data, _ := os.ReadFile(filepath.Join(r.Dest, MarkerFile))
	json.Unmarshal(data, &m)
	if e, ok := recordedCopies(t, o.PlugboardHome)[r.Dest]; !ok || e.Source != pkg || e.ID == "" || e.ID != m.ID {
		t.Errorf("links.json records %+v for %s (marker id %q), want source %s and the marker's id", e, r.Dest, m.ID, pkg)
	}
	if l := list(t, o); len(l) != 1 || l[0].Name != "my-plugin" || l[0].Mode != ModeCopy || l[0].Source != pkg || !l[0].SourceExists {
		t.Errorf("List = %+v, want the copy", l)
	}
	writeFile(t, filepath.Join(pkg, "skills", "wave", "SKILL.md"), skillOf("wave"))
	os.RemoveAll(filepath.Join(pkg, "skills", "greet"))
	if errs := syncLikeWatch(o); len(errs) != 0 {
		t.Fatalf("sync: %v", errs)
	}
	checkCopy(t, pkg, r.Dest, map[string]string{"plugin.json": "", "skills/wave/SKILL.md": ""})
	u, err := Unlink("my-plugin", Options{Home: o.Home, PlugboardHome: o.PlugboardHome})
	if err != nil || u.Mode != ModeCopy || u.Source != pkg {
		t.Errorf("Unlink(copy) = %+v, %v", u, err)
	}
	if _, err := os.Lstat(r.Dest); !os.IsNotExist(err) {
		t.Errorf("Unlink left the copy: %v", err)
	}
	if c := recordedCopies(t, o.PlugboardHome); len(c) != 0 {
		t.Errorf("links.json still records %v", c)
	}
	if _, err := os.Stat(filepath.Join(pkg, "plugin.json")); err != nil {
		t.Errorf("Unlink touched the source: %v", err)
	}
}

// Links and copies made at once, of distinct names and of one name, are each recorded:
// no write loses another's entry (each is read afresh under the lock), and of the Links
// of one name exactly one makes the copy, the others finding it in place.
func TestConcurrentLinksAllRecorded(t *testing.T) {
	o, pkg := setup(t)
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, 2*n)
	made := make([]bool, 2*n)
	for i := 0; i < 2*n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			lo := o
			lo.Copy = i%2 == 0 || i >= n
			lo.Name = fmt.Sprintf("p%d", i)
			if i >= n {
				lo.Name = "same"
			}
			r, err := Link(pkg, lo)
			errs[i], made[i] = err, err == nil && !r.AlreadyLinked
		}(i)
	}
	wg.Wait()
	sameMade := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("Link %d: %v", i, err)
		}
		if i >= n && made[i] {
			sameMade++
		}
	}
	if sameMade != 1 {
		t.Errorf("%d Links made the copy \"same\", want 1", sameMade)
	}
	got := map[string]string{}
	copies := recordedCopies(t, o.PlugboardHome)
	for _, l := range list(t, o) {
		got[l.Name] = l.Mode
		if e, ok := copies[l.Dest]; (l.Mode == ModeCopy) != ok || (ok && e.Source != pkg) {
			t.Errorf("links.json records %+v (%v) for the %s %s", e, ok, l.Mode, l.Dest)
		}
	}
	if len(copies) != n/2+1 {
		t.Errorf("links.json records %d copies, want %d: %v", len(copies), n/2+1, copies)
	}
	if len(got) != n+1 || got["same"] != ModeCopy || got["p0"] != ModeCopy || got["p1"] != ModeLink {
		t.Errorf("List after concurrent Links = %v, want p0…p%d and same", got, n-1)
	}
	for name := range got {
		if _, err := Unlink(name, o); err != nil {
			t.Errorf("Unlink(%s): %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(o.PlugboardHome, "plugins")); len(entries) != 0 {
		t.Errorf("left after Unlink: %v", entries)
	}
}

// list is List that fails the test on an error.
func list(t *testing.T, o Options) []Result {
	t.Helper()
	l, err := List(o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A registry damaged by a hand edit is never replaced: a write would drop every link and
// copy it records, which then read as not Plugboard's for good. List, Link, Unlink and
// Sync fail naming the file, its line and the fix, and change nothing.
func TestDamagedRegistryIsNotOverwritten(t *testing.T) {
	o, pkg := setup(t)
	if _, err := Link(pkg, o); err != nil {
		t.Fatal(err)
	}
	p := registryPath(o.PlugboardHome)
	good, _ := os.ReadFile(p)
	damaged := []byte(strings.Replace(string(good), `"links": {`, `"links": {,`, 1))
	if string(damaged) == string(good) {
		t.Fatalf("could not damage %s", good)
	}
	os.WriteFile(p, damaged, 0o600)
	named := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), p+":2: ") || !strings.Contains(err.Error(), "is not valid JSON") || !strings.Contains(err.Error(), "fix it") {
			t.Errorf("%s: %v, want the registry's file and line, and the fix", what, err)
		}
	}
	_, err := List(o)
	named("List", err)
	other := filepath.Join(filepath.Dir(pkg), "other")
	writeFile(t, filepath.Join(other, "plugin.json"), "{"+schemaV1+`, "name": "other", "version": "0.1.0"}`)
	_, err = Link(other, o)
	named("Link", err)
	oc := o
	oc.Copy = true
	_, err = Link(other, oc)
	named("Link --copy", err)
	_, err = Unlink("my-plugin", o)
	named("Unlink", err)
	named("Sync", Sync("my-plugin", o))
	if now, _ := os.ReadFile(p); string(now) != string(damaged) {
		t.Errorf("the damaged registry was rewritten:\n%s", now)
	}
	if target, err := os.Readlink(filepath.Join(o.PlugboardHome, "plugins", "my-plugin")); err != nil || target != pkg {
		t.Errorf("the recorded link is gone: %q %v", target, err)
	}
	if _, err := os.Lstat(filepath.Join(o.PlugboardHome, "plugins", "other")); !os.IsNotExist(err) {
		t.Errorf("a link or copy was made that nothing records: %v", err)
	}
}

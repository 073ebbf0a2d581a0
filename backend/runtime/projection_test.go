package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/plugboard/plugboard/backend/testhome"
)

// A dry run writes nothing (no projection, no data folder) and prints the argv and
// fingerprint the real launch then uses; once the projection exists it says "reused".
func TestDryRunWritesNothing(t *testing.T) {
	pb := home(t)
	req := request(pb, "coder")
	req.DryRun = true
	dry := build(t, req)
	for _, p := range []string{RuntimeDir(pb), filepath.Join(pb, "data")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("the dry run made %s", p)
		}
	}
	if dry.Reused || dry.Projection == "" || len(dry.Servers) != 3 {
		t.Fatalf("dry plan: reused=%v projection=%q servers=%v", dry.Reused, dry.Projection, dry.Servers)
	}
	real := build(t, request(pb, "coder"))
	if !slices.Equal(real.Argv, dry.Argv) || real.Fingerprint != dry.Fingerprint || !slices.Equal(real.Servers, dry.Servers) {
		t.Errorf("the launch differs from its dry run:\n dry  %v %s\n real %v %s", dry.Argv, dry.Fingerprint, real.Argv, real.Fingerprint)
	}
	if again := build(t, req); !again.Reused {
		t.Error("a dry run after the launch does not say the projection would be reused")
	}
}

// A dry run leaves out what the launch would: here the stdio server whose data folder
// cannot be made.
func TestDryRunPredictsDataFolderDrops(t *testing.T) {
	pb := home(t)
	os.MkdirAll(filepath.Join(pb, "data"), 0o700)
	os.WriteFile(filepath.Join(pb, "data", "plugin-data"), []byte("a file in the way"), 0o600)
	req := request(pb, "coder")
	req.DryRun = true
	dry := build(t, req)
	real := build(t, request(pb, "coder"))
	if !slices.Equal(dry.Servers, real.Servers) || len(dry.Dropped) != len(real.Dropped) || slices.Contains(dry.Servers, "lint") {
		t.Errorf("dry servers %v dropped %+v; launch servers %v dropped %+v", dry.Servers, dry.Dropped, real.Servers, real.Dropped)
	}
}

// A projection whose files no longer match its seal is made anew, not reused.
func TestSealedProjectionRebuildsWhenTouched(t *testing.T) {
	pb := home(t)
	first := build(t, request(pb, "coder"))
	// The seal names every file with the hash of what is in it.
	var sl seal
	readJSON(t, filepath.Join(first.Projection, sealFile), &sl)
	if len(sl.Files) < 4 {
		t.Fatalf("the seal lists %d files", len(sl.Files))
	}
	for _, f := range sl.Files {
		b, err := os.ReadFile(filepath.Join(first.Projection, filepath.FromSlash(f.Path)))
		if sum := sha256.Sum256(b); err != nil || hex.EncodeToString(sum[:]) != f.SHA256 || int64(len(b)) != f.Size {
			t.Errorf("seal entry %s does not match the file (%v)", f.Path, err)
		}
	}
	skill := filepath.Join(first.Projection, "plugins", "review", "skills", "check", "SKILL.md")
	want, err := os.ReadFile(skill)
	if err != nil {
		t.Fatal(err)
	}
	tamper := []struct {
		name string
		do   func()
		why  string
	}{
		{"deleted SKILL.md", func() { os.Remove(skill) }, "is missing"},
		{"appended to", func() { os.WriteFile(skill, append(want, "\nrm -rf ~\n"...), 0o600) }, "changed since it was projected"},
		{"same size, other bytes", func() { os.WriteFile(skill, bytes.ToUpper(want), 0o600) }, "changed since it was projected"},
		{"mode changed", func() { os.Chmod(skill, 0o700) }, "changed since it was projected"},
		{"file added", func() { os.WriteFile(filepath.Join(filepath.Dir(skill), "extra.md"), []byte("x"), 0o600) }, "was added"},
	}
	for _, c := range tamper {
		c.do()
		req := request(pb, "coder")
		req.DryRun = true
		if dry := build(t, req); dry.Reused || !strings.Contains(dry.Rebuilt, c.why) {
			t.Errorf("%s: dry run says reused=%v rebuilt=%q", c.name, dry.Reused, dry.Rebuilt)
		}
		p := build(t, request(pb, "coder"))
		if p.Reused || !strings.Contains(p.Rebuilt, c.why) || p.Projection != first.Projection {
			t.Errorf("%s: reused=%v rebuilt=%q", c.name, p.Reused, p.Rebuilt)
		}
		got, err := os.ReadFile(skill)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: the rebuilt SKILL.md is %q, %v", c.name, got, err)
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(skill), "extra.md")); err == nil {
			t.Errorf("%s: the added file survived the rebuild", c.name)
		}
		if again := build(t, request(pb, "coder")); !again.Reused {
			t.Errorf("%s: the rebuilt projection is not reused: %q", c.name, again.Rebuilt)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(first.Projection), ".tmp-*"))
	if len(left) > 0 {
		t.Errorf("rebuilds left %v behind", left)
	}
}

// The attack of issue 11: a folder inside a skill is swapped, again and again, with a
// link to a folder outside the plugin holding a private key, while launches are built.
// No projection may ever hold a byte of the key; the skill is either projected with its
// own files or reported dropped.
func TestSwappedSkillFolderNeverReachesTheProjection(t *testing.T) {
	pb := home(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "id_ed25519"), []byte("-----BEGIN OPENSSH PRIVATE KEY-----"), 0o600)
	refs := filepath.Join(pb, "plugins/review/skills/explain/references")
	os.WriteFile(filepath.Join(refs, "id_ed25519"), []byte("notes, not a key"), 0o644)
	swap := filepath.Join(pb, "plugins/review/swap") // in the plugin, outside the skill
	if err := os.Symlink(outside, swap); err != nil {
		t.Fatal(err)
	}
	halt := testhome.Swap(t, refs, swap)
	var included, dropped int
	for i := 0; i < 60; i++ {
		os.RemoveAll(RuntimeDir(pb)) // every try copies afresh
		p, err := Build(request(pb, "coder"))
		if err != nil {
			t.Fatalf("try %d: %v", i, err)
		}
		filepath.Walk(p.Projection, func(path string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("PRIVATE KEY")) {
					t.Fatalf("try %d: the projection holds the outside key at %s", i, path)
				}
			}
			return nil
		})
		if slices.Contains(p.Skills, "review:explain") {
			included++
		} else if slices.ContainsFunc(p.Dropped, func(d Drop) bool { return d.Name == "explain" && d.Reason != "" }) {
			dropped++
		} else {
			t.Fatalf("try %d: explain is neither launched nor reported dropped: %+v", i, p.Dropped)
		}
	}
	halt()
	t.Logf("60 launches under the swapper: explain projected %d times, dropped %d; 0 outside bytes", included, dropped)
	if dropped == 0 {
		t.Error("the swapper never won: the test proves nothing")
	}
}

// A launch remembers the hashes of the skill files it read (runtime/sums) and a later
// launch takes them from there; an edit that keeps the file's size still gives a new
// fingerprint and a projection with the new content, and a dry run writes no sums.
func TestRememberedHashesFollowEdits(t *testing.T) {
	t.Parallel()
	pb := home(t)
	// Launches remember only files changed more than 3 s before they start (ctree.Sums).
	time.Sleep(3*time.Second + 100*time.Millisecond)
	sums := sumsFile(pb, Claude, "agent:coder")
	dry := request(pb, "coder")
	dry.DryRun = true
	build(t, dry)
	if _, err := os.Lstat(sums); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote %s (%v)", sums, err)
	}
	first := build(t, request(pb, "coder"))
	data, err := os.ReadFile(sums)
	if err != nil {
		t.Fatalf("the launch remembered no hashes: %v", err)
	}
	style := filepath.Join(pb, "plugins", "review", "skills", "explain", "references", "style.md")
	old, err := os.ReadFile(style)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(old)
	if !strings.Contains(string(data), hex.EncodeToString(sum[:])) {
		t.Fatalf("%s does not hold the hash of %s:\n%s", sums, style, data)
	}
	before, err := os.Stat(sums)
	if err != nil {
		t.Fatal(err)
	}
	if again := build(t, request(pb, "coder")); !again.Reused || again.Fingerprint != first.Fingerprint {
		t.Fatalf("the second launch: reused=%v fingerprint %s, want %s", again.Reused, again.Fingerprint, first.Fingerprint)
	}
	if after, err := os.Stat(sums); err != nil || !os.SameFile(before, after) {
		t.Errorf("the unchanged launch wrote %s again (%v)", sums, err)
	}
	edited := bytes.ToUpper(old) // the same size
	if bytes.Equal(edited, old) {
		t.Fatal("the fixture's style.md has no letters to change")
	}
	if err := os.WriteFile(style, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	p := build(t, request(pb, "coder"))
	if p.Reused || p.Fingerprint == first.Fingerprint {
		t.Fatalf("after the edit: reused=%v fingerprint %s (was %s)", p.Reused, p.Fingerprint, first.Fingerprint)
	}
	got, err := os.ReadFile(filepath.Join(p.Projection, "plugins", "review", "skills", "explain", "references", "style.md"))
	if err != nil || !bytes.Equal(got, edited) {
		t.Errorf("the new projection's style.md = %q, %v; want the edited content", got, err)
	}

	// A remembered hash that is wrong (the file says nothing of how) fails the copy of a
	// new projection: the skill is left out as one that changed while it was copied
	// (never copied with content other than its hash), the remembered hashes are
	// forgotten, and the launch after it reads the files again.
	time.Sleep(3*time.Second + 100*time.Millisecond) // the edit is old enough to remember
	build(t, request(pb, "coder"))
	var st unix.Stat_t
	if err := unix.Stat(style, &st); err != nil {
		t.Fatal(err)
	}
	wrong := fmt.Sprintf("plugboard-sums 1\n%d %d %d %d %d %d %s\n", st.Dev, st.Ino, st.Size, st.Mtim.Nano(), st.Ctim.Nano(), st.Mode, strings.Repeat("0", 64))
	if err := os.WriteFile(sums, []byte(wrong), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(RuntimeDir(pb), Claude)); err != nil {
		t.Fatal(err)
	}
	p = build(t, request(pb, "coder"))
	if !slices.ContainsFunc(p.Dropped, func(d Drop) bool { return d.Name == "explain" && strings.Contains(d.Reason, "changed") }) {
		t.Fatalf("a wrong remembered hash: dropped %+v, want explain left out as changed while copied", p.Dropped)
	}
	if data, _ := os.ReadFile(sums); strings.Contains(string(data), strings.Repeat("0", 64)) {
		t.Errorf("the remembered hashes were kept after one proved wrong:\n%s", data)
	}
	p = build(t, request(pb, "coder"))
	got, err = os.ReadFile(filepath.Join(p.Projection, "plugins", "review", "skills", "explain", "references", "style.md"))
	if err != nil || !bytes.Equal(got, edited) {
		t.Errorf("the launch after: style.md = %q, %v; want the edited content", got, err)
	}
}

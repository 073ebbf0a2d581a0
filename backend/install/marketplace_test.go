package install

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/marketplace"
	"github.com/plugboard/plugboard/backend/testhome"
)

// A marketplace of two plugins — one a folder inside the marketplace, one a folder of
// another git repository (git-subdir, pinned to a tag) — installs each by
// PLUGIN@MARKETPLACE: the id is the entry's name, the lockfile records what the entry
// resolved to (so --locked needs no marketplace), and an unknown plugin is refused
// with the close name.
func TestInstallFromAMarketplace(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	repo := t.TempDir()
	writePlugin(t, filepath.Join(repo, "packages", "remote-tool"), "remote-tool")
	commit := commitAll(t, repo, "remote")
	gitIn(t, repo, "tag", "v2")
	writePlugin(t, filepath.Join(repo, "packages", "remote-tool"), "remote-tool-next") // after the tag
	commitAll(t, repo, "next")

	// a marketplace names other repositories by remote URL only: served on 127.0.0.1
	served := t.TempDir()
	gitIn(t, served, "clone", "--quiet", "--bare", repo, filepath.Join(served, "mono.git"))
	url := serveGit(t, served, nil) + "/mono.git"

	market := t.TempDir()
	writePlugin(t, filepath.Join(market, "plugins", "local-tool"), "local-tool")
	testhome.WriteFile(t, filepath.Join(market, marketplace.File), `{"name": "team", "owner": {"name": "Team"}, "plugins": [
  {"name": "local-tool", "source": "./plugins/local-tool"},
  {"name": "remote-tool", "source": {"source": "git-subdir", "url": "`+url+`", "path": "packages/remote-tool", "ref": "v2"}}
]}`)
	if _, err := marketplace.Add(pbHome, market, marketplace.AddOptions{}); err != nil {
		t.Fatal(err)
	}

	local, err := Install(context.Background(), opts(t, pbHome, "local-tool@team"))
	if err != nil {
		t.Fatal(err)
	}
	if local.ID != "local-tool" || local.Kind != KindFolder || local.Marketplace != "local-tool@team" ||
		local.Source != filepath.Join(market, "plugins", "local-tool") {
		t.Errorf("local-tool@team installed as %+v", local)
	}
	remote, err := Install(context.Background(), opts(t, pbHome, "remote-tool@team"))
	if err != nil {
		t.Fatal(err)
	}
	if remote.ID != "remote-tool" || remote.Kind != KindGit || remote.Commit != commit || remote.Ref != "v2" ||
		remote.Subpath != "packages/remote-tool" || remote.Marketplace != "remote-tool@team" {
		t.Errorf("remote-tool@team installed as %+v; want commit %s of the tag", remote, commit)
	}
	if ids := catalogIDs(pbHome); !slices.Equal(ids, []string{"local-tool", "remote-tool"}) {
		t.Errorf("catalog lists %v", ids)
	}
	lf, err := ReadLockfile(LockfilePath(pbHome))
	if err != nil {
		t.Fatal(err)
	}
	if e := lf.Plugins["remote-tool"]; e.Source != url || e.Commit != commit || e.Path != "packages/remote-tool" {
		t.Errorf("lockfile entry %+v; want what the entry resolved to", e)
	}
	_, err = Install(context.Background(), opts(t, pbHome, "remote-tol@team"))
	if !errors.Is(err, marketplace.ErrUnknownPlugin) || !strings.Contains(err.Error(), "remote-tool") {
		t.Errorf("an unknown plugin of the marketplace: %v; want a refusal naming remote-tool", err)
	}
}

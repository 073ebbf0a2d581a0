// Package benchhome builds synthetic homes for benchmarks: N portable plugins, each with
// K skills and an mcp.json, laid out exactly as a user's $PLUGBOARD_HOME would be. It
// writes only below the folder it is given.
package benchhome

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const pluginJSON = `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
  "name": "%s",
  "version": "1.0.%d",
  "description": "Synthetic plugin %d for benchmarks",
  "author": {"name": "Bench", "email": "bench@example.com"},
  "license": "MIT",
  "keywords": ["bench", "synthetic"]
}
`

const mcpJSON = `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
  "mcpServers": {
    "local-%[1]d": {
      "type": "stdio",
      "command": "./bin/server",
      "args": ["--data", "${PLUGIN_DATA}/cache", "--verbose"],
      "env": {"CONFIG": "${PLUGIN_ROOT}/config.json"},
      "cwd": "${PLUGIN_ROOT}"
    },
    "remote-%[1]d": {
      "type": "streamable-http",
      "url": "http://127.0.0.1:9/mcp/%[1]d",
      "headers": {"X-Tenant": "public"}
    }
  }
}
`

const skillMD = `---
name: %s
description: Use when the synthetic benchmark needs skill %d of plugin %d; it summarises a long artifact and keeps the evidence links.
license: MIT
metadata:
  author: bench
  version: "1.0"
---

# Skill %[2]d

Read the whole artifact, keep every evidence link, and report the main result in five lines.

1. Find the artifact.
2. Read it completely.
3. Summarise it.
`

// Generate writes plugins×skills under pbHome/plugins and returns the plugin folders.
func Generate(pbHome string, plugins, skills int) error {
	for p := 0; p < plugins; p++ {
		id := fmt.Sprintf("plugin-%04d", p)
		root := filepath.Join(pbHome, "plugins", id)
		if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(root, "plugin.json"), []byte(fmt.Sprintf(pluginJSON, id, p, p)), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(root, "mcp.json"), []byte(fmt.Sprintf(mcpJSON, p)), 0o644); err != nil {
			return err
		}
		for s := 0; s < skills; s++ {
			// Names are unique across plugins, as in a real home; precedence still runs
			// over every one of them.
			name := fmt.Sprintf("p%04d-skill-%02d", p, s)
			dir := filepath.Join(root, "skills", name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(fmt.Sprintf(skillMD, name, s, p)), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// Time runs argv with env (nil: this process's), its output going to /dev/null, and
// returns its wall time and its peak resident set in bytes (the kernel's accounting of the
// child). A run that exits non-zero is still timed; err is set only when it could not run.
// (/dev/null, not a pipe this process drains: the catalog writes 11 MB, and reading them
// here took this machine's second CPU from the program being measured.)
func Time(env []string, argv ...string) (time.Duration, int64, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	start := time.Now() // Stdout and Stderr nil: /dev/null
	err := cmd.Run()
	d := time.Since(start)
	if cmd.ProcessState == nil {
		return d, 0, err
	}
	return d, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024, nil
}

// How make app builds plugboard (Makefile: CLI_TAGS, CLI_LDFLAGS): statically linked,
// with Go's resolver and user lookup. make bench
// passes its own values to the benchmarks that build plugboard; these are their defaults,
// for a run by hand.
const (
	CLITags    = "netgo,osusergo,sqlite_omit_load_extension"
	CLILDFlags = "-linkmode external -extldflags -static"
)

// Build builds the Go package pkg (run from the module's root for plugboard: ".") into
// out, stripped, with tags and ldflags (CLITags and CLILDFlags to build it as shipped).
func Build(out, pkg, tags, ldflags string) error {
	cmd := exec.Command("go", "build", "-tags", tags, "-ldflags", "-w -s "+ldflags, "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// Uncache writes the file at path to disk and drops it from the page cache, so that the
// next start reads it back as it reads an installed program. A program just written (by
// the linker) is held in the page cache in large pieces, which its start maps whole: the
// same executable then shows 15.2 MB of peak resident set instead of 12.2 MB.
func Uncache(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

// Monotonic is CLOCK_MONOTONIC in ns, the clock a program started by Time can stamp its
// own progress with, for a caller to compare with one taken before.
func Monotonic() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// AddReferences writes n reference files of 20 KB (ref-000.md, …) into the references
// folder of the skill folder skillDir: a skill whose unchanged files a launch should not
// read again.
func AddReferences(skillDir string, n int) error {
	chunk := bytes.Repeat([]byte("a line of reference text for the benchmark\n"), 480)
	for i := range n {
		if err := os.WriteFile(filepath.Join(skillDir, "references", fmt.Sprintf("ref-%03d.md", i)), chunk, 0o644); err != nil {
			return err
		}
	}
	return nil
}

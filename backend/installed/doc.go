// Package installed finds the agent clients installed on this machine (claude, codex,
// pi, cursor-agent) and their versions, so that every verdict about a client can say
// what it was judged against: "claude 2.1.328 installed", or "codex not installed".
//
// Find looks for each client's executable in every PATH folder, then in its known
// install places under HOME (~/.local/bin, and ~/.claude/local/claude). A found
// executable's version comes from the first of these that gives one:
//
//   - install folder: the versioned folder its installer put it in, its links
//     followed: Claude Code's native installer (~/.local/share/claude/versions/<v>),
//     Cursor's (~/.local/share/cursor-agent/versions/<v>/cursor-agent), Homebrew
//     (Cellar/codex/<v>, Caskroom/claude-code/<v>);
//   - package.json: the nearest one above it, walking up and not past node_modules,
//     whose "name" is the client's npm package (@anthropic-ai/claude-code,
//     @openai/codex, @mariozechner/pi-coding-agent or @earendil-works/pi-coding-agent),
//     whatever folder an npm alias installed it under; for Codex also the
//     codex-package.json its native packages carry; for a launcher script, the package
//     in the node_modules beside it (Claude Code's older ~/.claude/local install);
//   - --version: only when no file tells, the executable is run once with --version, in
//     /, with no standard input and only PATH and HOME in its environment, in a process
//     group of its own that is killed after VersionTimeout; the first version-shaped word it prints
//     is the version. A run that fails leaves the version empty and says why in
//     Client.Problem.
//
// Cursor's second name, agent, is a common word: a file of that name counts only when it
// leads into Cursor's versions folder, and is never run.
//
// What Find learns is remembered in the process, per executable path, with the facts
// of the file it leads to (device, inode, size, modification and status-change times)
// and of the file the version was read from. A later Find where nothing changed starts
// no process and reads no file: one stat per PATH folder until each executable is found,
// and one of its package.json. An installer that replaces a file, or re-points a link,
// changes those facts, and the next Find learns again. A --version answer stays
// remembered while the executable is unchanged, even when it is a shim whose answer
// depends on something else (asdf, volta); a run the caller's context stopped is not
// remembered.
//
// Cost, measured by BenchmarkFind (go test -bench Find -benchmem) on the development
// machine (2 cores; a PATH of 14 folders with the pinned claude, codex and pi of
// build/agents in the first, cursor-agent absent, so looked for under two names in
// every folder): warm 27-37 µs, 9.9 KB and 143 allocations, all of it the stats; cold
// 105-220 µs, 32 KB and 334 allocations (links resolved, package.json files read);
// cold with one client only --version can tell, 1.7-2.9 ms, nearly all of it starting
// the process (a shell script; a node client takes 0.3-1.5 s, which is why a file is
// read first and the answer remembered).
//
// Find is safe for concurrent use; two Finds that start together on a cold cache may
// both learn the same executable.
package installed

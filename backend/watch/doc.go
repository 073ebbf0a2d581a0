// Package watch tells the catalog which files changed under its roots, so that the desktop
// app and `plugboard watch` can reload live (requirement U4).
//
// A Watcher watches every folder under each root with fsnotify (inotify on Linux), one
// watch per folder, because inotify is not recursive:
//
//   - Folders created later are walked and watched as soon as their Create event arrives,
//     and every file already inside them is reported, since files written before the watch
//     was armed (mkdir -p a/b/c && touch a/b/c/f) produce no event of their own.
//   - Symlinked folders are followed. Plugin folders are often links to an author's working
//     copy, so the link's target is watched and its changes are reported under the link's
//     path (root/plugins/foo/SKILL.md), never under the target's. A target reached through
//     several links is watched once and reported under every link. A link that leads back
//     to a folder above it is not followed (cycle). Removing or re-pointing a link drops
//     the old target's watches and arms the new one's.
//   - A root that does not exist yet is waited for: its nearest existing ancestor (up to
//     $HOME or the filesystem root) is watched without recursion. When the root appears,
//     vanishes or is re-pointed, a Batch with Rescan set is delivered and the root is
//     re-armed. A root may also be a single file (settings.json, mcp.json); its folder is
//     watched and only that name is reported.
//   - Folders named .git or node_modules are not watched: the catalog never reads them and
//     a checkout or an install would otherwise flood the queue and spend the watch limit.
//
// Events are debounced: a Batch is delivered DebounceDelay after the last event, and at the
// latest MaxWaitFactor × DebounceDelay after the first, so a continuous stream of writes
// cannot starve the reader. Paths in a Batch are deduplicated and sorted. An editor's
// atomic save (write a temp file in the same folder, rename it over the target) is
// reported as the target's path, usually together with the temp file's path; callers
// treat a path that no longer exists as a removal.
//
// When the kernel's watch limit (fs.inotify.max_user_watches) is reached, the Watcher logs
// how to raise it, reports Limited, and delivers a Rescan batch every PollInterval, trying
// again to arm the missing watches at each tick. Apart from that fallback it never polls.
//
// Concurrency: one goroutine owns all state; the methods of Watcher are safe to call from
// any goroutine. Close stops that goroutine and closes the Batches channel.
package watch

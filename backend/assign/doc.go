// Package assign lists the places plugins are assigned to and changes what they hold
// (requirements A1–A4, the collision rule of R6).
//
// Targets. Agents are $PLUGBOARD_HOME/agents/*.json ({"name", "profile", "pluginDirs",
// …}; target id agent:NAME) and templates $PLUGBOARD_HOME/templates/*.json ({"name",
// "agents": [{"ref", "pluginDirs"?}, …], …}); each slot is a target
// template:NAME/REF, or template:NAME/REF@INDEX (INDEX the 0-based position in
// "agents") for every slot of a ref that appears more than once. A file without a
// "name" is listed under its file name. Shell bindings (id shell:NAME) live in
// settings.json as
//
//	"shellBindings": {"NAME": {"agent": "AGENT", "pluginDirs": ["plugins/x"]}}
//
// (pluginDirs optional: without it the binding inherits its agent). Shell bindings and
// the __active__ slot (a slot whose ref is "__active__") are listed read-only: they
// have no stable place to write an assignment. Files that cannot be read or parsed are
// issues, never failures; a pluginDirs that is not a list of strings makes its target
// read-only.
//
// Entries. Relative entries resolve against $PLUGBOARD_HOME, ~/ against the home folder.
// A managed entry is one that cleans to plugins/<id> ("./plugins/x", "plugins/x/" and
// "plugins//x" are all plugins/x); a save writes every managed entry in that form, once.
// An entry that names the folder of a catalogued package outside $PLUGBOARD_HOME (a
// Cursor plugin, a skillPluginPaths package; catalog.Plugin.Entry) assigns that
// package's id too, and is kept as written. Other absolute entries are unmanaged: kept
// in place, shown, never rewritten. A relative entry anywhere else is kept as written too
// and reported (it is not a catalog entry). Adding an id writes its catalog entry.
//
// Changes. A slot without pluginDirs inherits its agent; a change to it writes a full
// custom snapshot (the agent's entries, unmanaged ones included, then the change);
// Defaults deletes that slot's pluginDirs and nothing else. Set gives the managed ids in
// order and keeps unmanaged entries where they are (managed ids fill the places of the
// old managed entries), so Change{Set: Outcome.Before} restores a managed list.
// SetDirs writes a pluginDirs list as given (nil deletes the member) and restores an
// Outcome's BeforeDirs, unmanaged entries and inheritance included (a member deleted by
// "use defaults" comes back at the end of its slot object): a history that records
// BeforeDirs reverts exactly with it. Reverts follow the same rules as any save.
//
// Rules (RuleError): an id newly written must be in the catalog and valid (one already
// in effect stays and can be removed); a name collision
// among the selected valid plugins — portable skill name, manifest name (namespace),
// MCP server name of a portable or Cursor plugin — that involves a plugin newly in effect
// is refused with the names and the plugins. A portable or Cursor plugin newly in effect
// with a valid MCP server needs
// an acknowledgment (AckError lists the servers, sanitised: names, transport and the
// mcpconfig summary, never an env or header value).
//
// Saves. Every target carries the sha256 of its file. A save reads the file, computes
// the new bytes (jsonfile.SetMember: only the bytes of the pluginDirs member change, in
// the agent object or the one slot object; everything else — indentation, CRLF line
// endings, key order, the other members as written — stays, and a new value is written
// in the file's style: over several lines with its indent, or on one line where the old
// value was; a deleted member takes its comma, an added one goes last in its object; the
// file keeps its mode), takes jsonfile.Lock on LockName in the file's folder, re-reads
// the file, and writes with jsonfile.WriteAtomic (temporary file in the folder, fsync,
// rename) only if the hash is still the one the save started from, and the caller's
// expectHash when given; otherwise it returns a *StaleError with the fresh target and
// writes nothing. So two processes saving from the same hash: exactly one wins. A file
// its owner may not write (mode 0444; a symlinked file: where it points) is refused with
// ErrReadOnly, naming the file and chmod u+w: the rename needs only the folder to be
// writable and would replace it. The mode bits decide, so the refusal holds for root. A process killed mid-save
// leaves the old file or the new one; it may leave a ".NAME.tmp-*" file beside it, which
// the next save of that file removes once it is a minute old. The lock files stay (they
// hold no data). The hash guards the target's own file: a slot's snapshot is taken from
// its agent's file as read, unguarded.
//
// Doors. The page and the CLI save through SaveAndRecord: the save (Apply, or Revert of
// a history entry), its history entry (Record, with the door's actor) and a failure
// sorted into a *SaveError kind (stale, refused, ack-needed, read-only, not-found,
// other), which each door presents in its own words, within the caller's context.
//
// Concurrency: the package holds no state; its functions may be called from several
// goroutines and processes at once, the lock and the hash settling writers.
package assign

// Package activity records which skills launched agents invoke and reports them (R8,
// X3).
//
// # Recording
//
// A Claude launch passes Claude Code hooks (backend/runtime, activity.go) that run
// "plugboard activity record INDEX" with the hook's JSON on stdin: after every Skill tool
// call (PostToolUse, matcher Skill: the model invoked it, and it loaded) and after every
// slash command that expanded to a skill or command (UserPromptExpansion with
// expansion_type slash_command: the user invoked it). [FromClaudeHook] reads from that
// JSON only what names the invocation — the event, the tool's name, the skill or
// command name, the session id and Claude's id of the call (tool_use_id, prompt_id) —
// and never the arguments, the prompt or the tool's response beyond its success and the
// name Claude resolved. The projection's index (INDEX) gives the plugin id, version and
// content hash of the skills the launch handed over; the target comes from the agent's
// environment (runtime.ActivityTargetEnv). [Record] then writes one row with
// store.RecordActivity, which spools it when the database is busy.
//
// PI has no hooks. A PI launch loads an extension of Plugboard's with -e (backend/runtime,
// piactivity.ts, copied into the projection beside the index) that runs "plugboard
// activity record --pi INDEX" with a JSON of four members on stdin — the event, the
// skill's name, PI's session id and an id of the invocation — after each successful call
// of PI's read tool whose path, resolved against the cwd, is the SKILL.md of a skill the
// index lists (event "read": the model invoked it), and for each user message PI made of
// a skill command, /skill:name (event "command": the user invoked it; the id is one the
// extension draws for it). The extension sends nothing else: not the prompt, not the
// tool's arguments, not its result. [FromPIEvent] reads that JSON and [RecordPI] records
// it as Record does; PI's index names the skills by PI's bare names, so a name it lacks
// is recorded as it is, with no plugin. The key is a hash of "pi", the session, the event
// and the id, so an event recorded twice is one row. The extension waits for its
// recorder (a few seconds at most) before PI goes on, so the row is in the store before
// the model has the read's result.
//
// A launcher that waits for its agent (plugboard launch) hosts the recorder instead: a
// [Server] on loopback takes the same inputs over HTTP (Claude's hooks as HTTP hooks,
// PI's extension posting its JSON) with a token only the agent's environment holds, and
// writes them through one store.Writer, so that a skill use costs an HTTP round trip and
// an insert, not a process (runtime.Plan.UseActivityServer points the plan at it).
//
// The recorder must never block or fail the agent: the CLI command exits 0 whatever
// happens and prints nothing (a hook's output can reach the model, and pi's stdout in
// print mode is its answer), reads at most maxHookInput bytes, and the store waits
// milliseconds at most before spooling.
//
// # Names
//
// Claude names a plugin's skill plugin:skill (PI names every skill by its bare name, and a
// launch hands it no two of one name). The model may call one by its bare name;
// Claude then loads a standalone skill of that name (~/.claude/skills/<name>, or the
// project's .claude/skills/<name>) when there is one, else the plugin skill, and reports
// the bare name. Record does the same resolution: a bare name with no standalone skill
// and exactly one plugin skill of the launch with that short name is recorded as that
// skill; otherwise it is recorded as it is, with no plugin.
//
// # Reporting
//
// [Summarize] turns the records into uses per skill (with the last use, the uses per
// target and per day) and calls per MCP tool (with errors and the median time), and lists
// the skills of plugins assigned to targets (Claude or PI, under the name that backend
// gives them) that have no use by that target since the save that assigned the plugin
// (from the assignment history), or, for a plugin no recorded save assigned, ever.
// [Load] reads what Summarize needs from a Plugboard home, after removing the records
// older than the retention the settings give.
//
// Concurrency: every function is safe for concurrent use; the store serialises writes.
package activity

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
// The recorder must never block or fail the agent: the CLI command exits 0 whatever
// happens and prints nothing (a hook's output can reach the model), reads at most
// maxHookInput bytes, and the store waits milliseconds at most before spooling.
//
// # Names
//
// Claude names a plugin's skill plugin:skill. The model may call one by its bare name;
// Claude then loads a standalone skill of that name (~/.claude/skills/<name>, or the
// project's .claude/skills/<name>) when there is one, else the plugin skill, and reports
// the bare name. Record does the same resolution: a bare name with no standalone skill
// and exactly one plugin skill of the launch with that short name is recorded as that
// skill; otherwise it is recorded as it is, with no plugin.
//
// # Reporting
//
// [Summarize] turns the records into uses per skill (with the last use and the uses per
// target) and lists the skills of plugins assigned to Claude targets that have no use
// by that target since the save that assigned the plugin (from the assignment history),
// or, for a plugin no recorded save assigned, ever.
//
// Concurrency: every function is safe for concurrent use; the store serialises writes.
package activity

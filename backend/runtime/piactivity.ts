// Plugboard's skill-activity recorder for PI (R8). A PI launch copies this file into its
// projection beside the activity index (activity.json) and loads it with -e
// (backend/runtime, piactivity.go). It records two things, each by posting a small JSON
// to the recorder plugboard launch hosts when the environment names one
// (PLUGBOARD_ACTIVITY_URL and PLUGBOARD_ACTIVITY_TOKEN), else by running the index's
// "record" command (plugboard activity record --pi INDEX) with that JSON on stdin:
//
//   - a successful call of the read tool whose path, resolved as the tool resolves it, is
//     the SKILL.md of a skill the index knows: the model invoked that skill;
//   - a user message that starts with the block PI puts in place of a skill command
//     (/skill:name args): the user invoked that skill.
//
// The JSON names the event, the skill, PI's session id and an id of the invocation (the
// tool call's id, or a random one for a command), nothing else: never the prompt, the
// tool's arguments or its result. The handler waits for its recorder (at most
// maxWaitMs; a recorder returns in milliseconds, the store spools rather than wait), and
// PI waits for the handler before it hands the model the read's result, so the record
// is in the store before the turn goes on (plugboard try reads a turn's records as soon
// as it ends). The recorder's output is discarded (stdout in print mode is the answer)
// and every failure is swallowed. When the session shuts down, recorders still running
// are waited for, at most maxWaitMs, so that a print-mode run ends with its records
// written.
//
// It imports nothing but Node's built-ins and declares the little of PI's extension API
// it uses, so that it loads with any PI and can be checked on its own.

import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

interface Context {
	cwd: string;
	sessionManager: { getSessionId(): string };
}

interface ExtensionAPI {
	on(event: string, handler: (event: any, ctx: Context) => unknown): void;
}

interface Index {
	record?: unknown;
	skills?: Record<string, { location?: unknown }>;
}

// maxWaitMs bounds the wait for running recorders at shutdown: a recorder returns in
// milliseconds (the store spools rather than wait), so this only stops a stuck one from
// holding PI's exit.
const maxWaitMs = 5000;

// skillBlock is the start of the text PI makes of /skill:name (agent-session.js,
// _expandSkillCommand): <skill name="NAME" location="PATH">, then a newline.
const skillBlock = /^<skill name="([^"\n]+)" location="[^"\n]*">\n/;

export default function plugboardActivity(pi: ExtensionAPI): void {
	let index: Index;
	try {
		const file = join(dirname(fileURLToPath(import.meta.url)), "activity.json");
		index = JSON.parse(readFileSync(file, "utf8"));
	} catch {
		return; // no index: nothing to record with
	}
	const record = index.record;
	if (!Array.isArray(record) || record.length === 0 || !record.every((a) => typeof a === "string")) {
		return;
	}
	const byLocation = new Map<string, string>();
	for (const [name, s] of Object.entries(index.skills ?? {})) {
		if (s && typeof s.location === "string") {
			byLocation.set(resolve(s.location), name);
		}
	}
	const running = new Set<Promise<void>>();

	// The recorder plugboard launch hosts, when it started this PI (its URL and token in
	// the environment): a POST instead of a process per invocation.
	const url = process.env.PLUGBOARD_ACTIVITY_URL;
	const token = process.env.PLUGBOARD_ACTIVITY_TOKEN;

	const send = (event: string, skill: string, ctx: Context, call: string): Promise<void> => {
		const body = JSON.stringify({ event, skill, session: ctx.sessionManager.getSessionId(), call });
		if (url && token) {
			const posted = fetch(url, {
				method: "POST",
				headers: { "content-type": "application/json", "x-plugboard-token": token },
				body,
			}).then(
				(res) => {
					if (res.status !== 204) {
						return spawnRecorder(body); // not the recorder's answer: record the other way
					}
				},
				() => spawnRecorder(body),
			);
			return bounded(posted);
		}
		return spawnRecorder(body);
	};

	const spawnRecorder = (body: string): Promise<void> => {
		try {
			const child = spawn(record[0], record.slice(1), { stdio: ["pipe", "ignore", "ignore"] });
			const done = new Promise<void>((settle) => {
				child.once("close", () => settle());
				child.once("error", () => settle());
			});
			running.add(done);
			void done.then(() => running.delete(done));
			child.unref(); // PI's exit waits at session_shutdown, not for the process
			child.stdin?.on("error", () => {});
			child.stdin?.end(body);
			return bounded(done);
		} catch {
			// recording never fails the agent
			return Promise.resolve();
		}
	};

	pi.on("tool_result", async (event, ctx) => {
		try {
			if (event?.toolName !== "read" || event.isError) {
				return;
			}
			const p = event.input?.path ?? event.input?.file_path;
			if (typeof p !== "string" || typeof event.toolCallId !== "string") {
				return;
			}
			const name = byLocation.get(readPath(p, ctx.cwd));
			if (name !== undefined) {
				await send("read", name, ctx, event.toolCallId);
			}
		} catch {
			// as above
		}
	});

	pi.on("message_start", async (event, ctx) => {
		try {
			const m = event?.message;
			if (m?.role !== "user") {
				return;
			}
			const text = typeof m.content === "string" ? m.content : m.content?.[0]?.type === "text" ? m.content[0].text : "";
			const match = typeof text === "string" ? skillBlock.exec(text) : null;
			if (match) {
				await send("command", match[1], ctx, randomUUID());
			}
		} catch {
			// as above
		}
	});

	pi.on("session_shutdown", async () => {
		if (running.size > 0) {
			await bounded(Promise.all([...running]).then(() => {}));
		}
	});
}

// bounded settles when p does, or after maxWaitMs.
async function bounded(p: Promise<void>): Promise<void> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const late = new Promise<void>((settle) => {
		timer = setTimeout(settle, maxWaitMs);
	});
	await Promise.race([p, late]);
	clearTimeout(timer);
}

// readPath resolves a read tool's path as PI's read tool does (tools/path-utils.js): a
// leading @ dropped, Unicode spaces made plain, ~ the home folder, relative to the cwd.
function readPath(p: string, cwd: string): string {
	let s = p.startsWith("@") ? p.slice(1) : p;
	s = s.replace(/[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g, " ");
	if (s === "~") {
		s = homedir();
	} else if (s.startsWith("~/")) {
		s = homedir() + s.slice(1);
	}
	return resolve(cwd, s);
}

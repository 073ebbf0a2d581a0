// Package mcptap counts the MCP tool calls of launched agents (R8, issue 13): every MCP
// server a launch hands an agent is reached through plugboard, a stdio server through
// "plugboard mcp-stdio" and a remote one through "plugboard mcp-proxy", and both watch
// the JSON-RPC they relay.
//
// A [Tap] pairs each tools/call the client sends with the server's answer to it by the
// JSON-RPC id, and hands the answered call (its tool, the milliseconds from the call to
// the answer, and whether the answer was a JSON-RPC error or a result with "isError":
// true) to a [Sink]. It reads from a message only its method, id, the tool's name, the
// presence of an error and the isError flag: never an argument, a result or any other
// value. At most maxPending calls wait for their answers; a call beyond that, a call
// cancelled (notifications/cancelled) and a call never answered are not counted.
//
// [Copy] relays newline-delimited JSON-RPC byte for byte and shows each line to the tap;
// a line longer than [MaxLine] is relayed in pieces as it arrives and not parsed.
// [RunStdio] starts a stdio server as a child of mcp-stdio and relays its stdin and
// stdout through two Copys. A [Recorder] takes the answered calls into a bounded queue
// and writes them, one row each, from a goroutine of its own through a store.Writer
// (its connection kept open; it spools when the database is busy); a call that finds the queue full is dropped,
// said once on stderr. The relays hand a call over before they pass its answer on and
// wait for its row ([Recorder.Wait], at most [AnswerWait]; a write takes a millisecond
// or two), so that a turn's rows are in the store when the agent has its answers, which
// plugboard try relies on.
//
// The launch names what a row carries besides the call in the server's private config
// file ([Info]: PLUGBOARD_HOME, backend, fingerprint, plugin and server name); the
// target and a try's run come from the environment the agent gives the relay.
//
// Concurrency: a Tap and a Recorder are safe for concurrent use.
package mcptap

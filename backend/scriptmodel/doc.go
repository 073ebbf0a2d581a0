// Package scriptmodel is a scripted model server for tests that drive the real agent
// clients (Claude Code, PI) through whole turns with no account and no network.
//
// Contract:
//
//   - Start serves the Anthropic Messages API on a loopback listener (127.0.0.1, or one
//     the caller made, such as Netns.Listen): POST /v1/messages, with or without a query
//     (Claude sends ?beta=true), answered as a server-sent event stream when the request
//     has "stream": true (message_start, then per block content_block_start /
//     content_block_delta (text_delta or input_json_delta) / content_block_stop, then
//     message_delta with the stop reason and message_stop) and as one JSON message
//     otherwise. POST /v1/messages/count_tokens answers an estimate; HEAD or GET / answers
//     200 (Claude Code 2.1.197 probes HEAD / before its first request; PI 0.73 sends only
//     /v1/messages). Every other path is recorded and answered 404 with an Anthropic
//     error body.
//   - A script is a list of Steps. Each request for /v1/messages that Main accepts (by
//     default: one that offers tools, which a client's side requests such as title
//     generation do not) is decoded and handed to the next step, which returns the
//     assistant's blocks (text or tool_use; a tool_use without an id gets one). A
//     request Main refuses gets Side's reply (default: the text "ok"). A main request
//     after the last step, or a step's error, gets an API error (HTTP 400
//     invalid_request_error, which clients do not retry, unlike a 5xx that would take
//     the next step) and is kept in Err; the client sees a failed turn, never a hang.
//   - Every request is recorded (path, query, the raw body, the decoded body, whether it
//     was main, which step answered it) before it is answered; Requests returns them in
//     arrival order. Only the header names that carry no secret are kept: the values of
//     x-api-key, authorization and cookie headers are never stored.
//   - Concurrency: the handler may run for several requests at once (clients send side
//     requests in parallel). Steps are called one at a time, in script order, each
//     with a request it may read but must not keep after it returns. Requests, Main,
//     Err and Done may be called from any goroutine. Done is closed once every step has
//     answered; it is the signal to wait on, never a sleep.
//   - Close stops the server and waits for running handlers.
//
// Helpers: ClaudeEnv gives the environment that points claude at the server offline;
// WritePIModels writes a custom provider for PI into HOME/.pi/agent/models.json and
// PIArgs selects it. Netns (Linux, root) is an empty network namespace with loopback up,
// so that the server, the client and the MCP servers it starts share a loopback that
// reaches nothing else.
//
// Request helpers read what the client really sent: SystemText (the system prompt,
// where PI lists its skills), ToolNames, ToolResults (tool_result blocks, with their
// text), Answer (the whole user turn answering one tool_use: Claude sends a skill's body
// as a text block beside its tool_result), Texts (every text of the client's messages,
// "system" role messages included, where Claude's skill listing travels) and AvailableSkills (PI's <available_skills> listing,
// with each skill's location).
package scriptmodel

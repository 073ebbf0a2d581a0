// Package runtime launches agents from private, content-addressed projections
// (requirements R1–R7).
//
// Build reads a target and every plugin of its effective set afresh (R1), checks the set
// for name collisions and fails closed on any (R6), normalises portable MCP servers once
// for every backend (R3, R5), fingerprints everything the launch's capabilities depend on
// (R6) and makes the projection $PLUGBOARD_HOME/runtime/<backend>/<fingerprint>/ (0700)
// unless it exists already (R2). No argument it produces points into an installed
// package's skills: skills are containment-checked, hashed and copied. Legacy Claude
// folders are the exception R1 makes: Claude gets them as they are.
//
// Claude gets one compatibility plugin per portable or Cursor package (--plugin-dir) and
// a supplemental --mcp-config. PI gets one --skill per projected skill with its own
// discovery turned off, and its MCP through the pi-mcp-adapter extension with a private
// config. In both configs every server runs this program: "plugboard mcp-stdio" starts a
// stdio server in its folder with its env, "plugboard mcp-proxy" bridges a remote one;
// their command lines, env values, URLs and headers sit in 0600 files of the projection
// (serverFiles). Data folders are made only for stdio servers about to launch.
//
// Every portable MCP server must be acknowledged for the launched target in the form it
// has now (ack.go: a digest of what it runs); one that is not is left out with the
// reason, or with Request.RequireAck the launch fails with an *AckError.
//
// Portable MCP is suppressed for benchmark runs and the subagent surface (R7); an
// explicit empty set (--plugins none) has none to begin with. Two folders with one
// plugin id fail closed like any name collision. Projections not launched for 30 days
// are pruned when a new one is made.
//
// Pool keeps non-interactive sessions keyed by fingerprint (and argv). Run starts a plan
// in the foreground. Nothing here prints or returns an environment or header value: they
// live in the projection's private files and in the agent's environment only.
package runtime

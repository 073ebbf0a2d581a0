package mcpconfig

import "strings"

// Expand performs the placeholder expansion of spec §9.2: a single, non-recursive textual
// replacement of every exact ${PLUGIN_ROOT} and ${PLUGIN_DATA}. Text introduced by a
// replacement is not scanned again, and nothing else (${FOO}, $HOME, ~) is expanded. The
// runtime applies it to args, env values and cwd; never to command, env keys, url or
// headers.
func Expand(s, pluginRoot, pluginData string) string {
	if !strings.Contains(s, "${PLUGIN_") {
		return s
	}
	return strings.NewReplacer(rootVar, pluginRoot, dataVar, pluginData).Replace(s)
}

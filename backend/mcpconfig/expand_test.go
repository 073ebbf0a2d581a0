package mcpconfig

import "testing"

func TestExpand(t *testing.T) {
	const root, data = "/p/root", "/p/data"
	tests := []struct{ in, want string }{
		{"${PLUGIN_ROOT}/config.json", "/p/root/config.json"},
		{"${PLUGIN_DATA}", "/p/data"},
		{"--a=${PLUGIN_ROOT} --b=${PLUGIN_DATA} --c=${PLUGIN_ROOT}", "--a=/p/root --b=/p/data --c=/p/root"},
		{"${PLUGIN_ROOT}${PLUGIN_ROOT}", "/p/root/p/root"},
		{"${FOO}/x $PLUGIN_ROOT ${plugin_root} ${PLUGIN_ROOT", "${FOO}/x $PLUGIN_ROOT ${plugin_root} ${PLUGIN_ROOT"},
		{"$${PLUGIN_DATA}}", "$/p/data}"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Expand(tc.in, root, data); got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Non-recursive: text introduced by a replacement is not scanned again.
	if got := Expand("${PLUGIN_ROOT}/x", "/r/${PLUGIN_DATA}", "/d"); got != "/r/${PLUGIN_DATA}/x" {
		t.Errorf("Expand re-expanded the root: %q", got)
	}
	if got := Expand("${PLUGIN_DATA}|${PLUGIN_ROOT}", "${PLUGIN_DATA}", "${PLUGIN_ROOT}"); got != "${PLUGIN_ROOT}|${PLUGIN_DATA}" {
		t.Errorf("Expand swapped placeholders recursively: %q", got)
	}
}

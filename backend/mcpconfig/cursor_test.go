package mcpconfig

import "testing"

func TestCursorVarsExpand(t *testing.T) {
	v := CursorVars{Home: "/home/u", Workspace: "/src/proj", PluginRoot: "/p/root"}
	for _, tc := range []struct{ in, want string }{
		{"${userHome}/x", "/home/u/x"},
		{"${workspaceFolder}${/}a${pathSeparator}b", "/src/proj/a/b"},
		{"name=${workspaceFolderBasename}", "name=proj"},
		{"${CURSOR_PLUGIN_ROOT}/bin/serve", "/p/root/bin/serve"},
		// environment references and unknown variables are left for later
		{"Bearer ${env:TOKEN} ${TOKEN2} ${PLUGIN_ROOT}", "Bearer ${env:TOKEN} ${TOKEN2} ${PLUGIN_ROOT}"},
		{"${unclosed", "${unclosed"},
		{"plain", "plain"},
	} {
		got, err := v.Expand(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	// A value that would read as a reference later is refused, not put in.
	if _, err := (CursorVars{Workspace: "/w/${env:HOME}"}).Expand("${workspaceFolder}"); err == nil {
		t.Error("a workspace path holding ${ was put into the text")
	}
}

func TestExpandEnvRefs(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret", "userHome": "not-a-ref"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct{ in, want string }{
		{"Bearer ${env:TOKEN}", "Bearer s3cret"},
		{"Bearer ${TOKEN}", "Bearer s3cret"},
		{"${env:UNSET}|${UNSET}", "|"},
		// a folder variable is not an environment reference unless written env:
		{"${userHome} ${env:userHome}", "${userHome} not-a-ref"},
		// not a variable name: kept
		{"${1X} ${env:} ${a-b}", "${1X} ${env:} ${a-b}"},
	} {
		if got := ExpandEnvRefs(tc.in, lookup); got != tc.want {
			t.Errorf("ExpandEnvRefs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// One pass: a value holding a reference is not expanded again.
	env["LOOP"] = "${TOKEN}"
	if got := ExpandEnvRefs("${LOOP}", lookup); got != "${TOKEN}" {
		t.Errorf("expanded twice: %q", got)
	}
	if !HasEnvRefs("a ${env:X}") || !HasEnvRefs("${X}") || HasEnvRefs("${userHome} ${/}") {
		t.Error("HasEnvRefs")
	}
}

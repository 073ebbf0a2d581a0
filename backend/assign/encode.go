package assign

import (
	"github.com/plugboard/plugboard/backend/jsonfile"
)

// rewrite returns the target's file with its pluginDirs replaced by dirs (nil: the
// member is deleted). Only the bytes of that member change (jsonfile.SetMember): the
// agent object's, or the one template slot object's in "agents"; every other byte —
// indentation, line endings, key order, the other members as written — stays. The new
// value is written in the file's style: over several lines with the file's indent when
// the file is indented, on one line when the old value was written on one line. A
// deleted member takes its comma with it; a new one is appended to its object.
func (t *located) rewrite(dirs []string) ([]byte, error) {
	var v any
	if dirs != nil {
		v = dirs
	}
	return jsonfile.SetMember(t.data, t.ptr, "pluginDirs", v)
}

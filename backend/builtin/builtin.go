// Package builtin holds the skills that ship inside the Plugboard binary. They are the
// last layer of skill precedence (F7 item 5): any user, plugin or project skill of the
// same name overrides them. The embedded files are read-only and safe for concurrent use.
package builtin

import (
	"embed"
	"io/fs"
)

//go:embed skills
var files embed.FS

// Skills returns the built-in skills as a file system whose top-level folders are skills.
func Skills() fs.FS {
	sub, err := fs.Sub(files, "skills")
	if err != nil {
		panic(err) // the embedded tree is part of the build
	}
	return sub
}

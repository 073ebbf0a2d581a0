package app

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/editor"
)

// Problems lists every issue of the last scan (catalog.Problems): what the header and the
// overview count, one row each, with its absolute file.
func (s *Service) Problems() ([]catalog.Problem, error) {
	c, err := s.Catalog()
	if err != nil {
		return nil, err
	}
	return c.Problems(), nil
}

// OpenedFile is how a file was opened: the command, and the terminal it runs in when the
// editor needs one.
type OpenedFile struct {
	Command  []string `json:"command"`
	Terminal string   `json:"terminal,omitempty"`
}

// CodeNoEditor: there is no editor to open a file with (the message says what to set).
const CodeNoEditor = "no-editor"

// OpenFile opens file at line in the user's editor (backend/editor: $VISUAL, $EDITOR, VS
// Code, else xdg-open). Only a file a problem of the last scan names is opened (a page
// cannot ask the app to open anything else); a missing file (the issue is that it is
// missing) opens its folder.
func (s *Service) OpenFile(file string, line int) (OpenedFile, error) {
	c, err := s.Catalog()
	if err != nil {
		return OpenedFile{}, err
	}
	named := false
	for _, p := range c.Problems() {
		if p.File != "" && p.File == file {
			named = true
			break
		}
	}
	if !named {
		return OpenedFile{}, &Error{Code: CodeInvalid, Message: "Plugboard opens only the files its issues name, and no issue of the last scan names " + file}
	}
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		file, line = filepath.Dir(file), 0
	}
	o, err := editor.For(s.getenv, exec.LookPath, file, line)
	if err != nil {
		return OpenedFile{}, &Error{Code: CodeNoEditor, Message: err.Error()}
	}
	res := OpenedFile{Command: o.Argv}
	if o.Terminal {
		res.Terminal, err = s.inTerminal(o.Argv, "the editor")
		return res, err
	}
	path, err := exec.LookPath(o.Argv[0])
	if err == nil {
		err = start(path, o.Argv[1:])
	}
	if err != nil {
		return res, &Error{Code: CodeNoEditor, Message: "cannot start the editor " + o.Argv[0] + ": " + err.Error() + "; set $VISUAL or $EDITOR to the one you use"}
	}
	return res, nil
}

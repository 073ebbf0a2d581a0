// Package argerr marks an error as the caller's argument being unusable (a source that
// does not exist, a name that breaks a rule), keeping its text, so that every door can
// answer it as the caller's mistake (the page: invalid or not-found; the CLI: a usage
// error) rather than as an I/O failure.
package argerr

import (
	"errors"
	"io/fs"
)

// ErrBadArgument is what errors.Is finds in every error this package marks.
var ErrBadArgument = errors.New("an argument cannot be used")

// Bad marks err as an argument that cannot be used.
func Bad(err error) error { return bad{err: err} }

// Missing marks err as an argument naming something that does not exist: it is
// fs.ErrNotExist too.
func Missing(err error) error { return bad{err: err, notFound: true} }

type bad struct {
	err      error
	notFound bool
}

func (e bad) Error() string { return e.err.Error() }
func (e bad) Unwrap() error { return e.err }
func (e bad) Is(target error) bool {
	return target == ErrBadArgument || e.notFound && target == fs.ErrNotExist
}

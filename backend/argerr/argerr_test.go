package argerr

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestMarks(t *testing.T) {
	cause := errors.New("x: no such folder")
	bad, missing := Bad(cause), Missing(cause)
	for _, c := range []struct {
		err               error
		argument, notHere bool
	}{
		{bad, true, false},
		{missing, true, true},
		{fmt.Errorf("adding: %w", missing), true, true},
		{cause, false, false},
	} {
		if errors.Is(c.err, ErrBadArgument) != c.argument || errors.Is(c.err, fs.ErrNotExist) != c.notHere {
			t.Errorf("%v: Is(ErrBadArgument) = %v, Is(fs.ErrNotExist) = %v; want %v, %v", c.err,
				errors.Is(c.err, ErrBadArgument), errors.Is(c.err, fs.ErrNotExist), c.argument, c.notHere)
		}
	}
	if bad.Error() != cause.Error() || !errors.Is(bad, cause) {
		t.Errorf("Bad(%v) reads %q and unwraps to the cause: %v", cause, bad.Error(), errors.Is(bad, cause))
	}
}

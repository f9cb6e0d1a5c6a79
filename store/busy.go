package store

import (
	"errors"

	"modernc.org/sqlite"
)

// SQLite's primary result codes for a database another connection holds.
const (
	sqliteBusy   = 5
	sqliteLocked = 6
)

// Busy tells whether err is SQLite's "database is locked": another writer
// (an import on the command line, say) held the write lock past the busy
// timeout. It is no fault of the request, which may be sent again.
func Busy(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	code := e.Code() & 0xff // note: the extended codes (517, 261, ...) keep the primary one in their low byte
	return code == sqliteBusy || code == sqliteLocked
}

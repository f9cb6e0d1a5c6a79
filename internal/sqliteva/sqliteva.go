// Package sqliteva passes arguments to SQLite's variadic functions
// (sqlite3_config, sqlite3_db_config) as the driver's transpiled library
// takes them: in a C va_list, memory of the library's allocator that the
// caller frees once the call returned.
package sqliteva

import (
	"errors"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
)

// slot is libc.VaList's stride: each argument, an int or a pointer, takes
// 8 bytes.
const slot = 8

// List is args as a va_list, and the function that frees it.
func List(tls *libc.TLS, args ...any) (list uintptr, free func(), err error) {
	list = libc.Xmalloc(tls, types.Size_t(slot*len(args)))
	if list == 0 {
		return 0, nil, errors.New("no memory for a va_list")
	}
	return libc.VaList(list, args...), func() { libc.Xfree(tls, list) }, nil
}

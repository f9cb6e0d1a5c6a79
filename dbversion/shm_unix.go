//go:build unix

package dbversion

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// sharedHeader is the mapped start of a -shm file: the WAL-index header,
// twice. Writers update copy 2, then copy 1; readers that find the two
// equal have a header no commit is halfway through.
type sharedHeader struct {
	mem []byte
}

// headerBytes is both copies of the header.
const headerBytes = 2 * 48

// shmFiles holds, by path, the descriptor of each -shm file mapped, open
// for the life of the process. note: never closed, because closing any
// descriptor of a file drops every POSIX lock this process holds on it,
// SQLite's own included: the shared lock that tells other processes the
// -shm is in use, and the WAL's read marks. With them gone, the next
// process to open the database (an import beside the server) took the
// -shm for abandoned and cleared it under the server, whose reads then
// failed with SQLITE_IOERR_IN_PAGE ("disk I/O error (8714)").
var (
	shmFilesMu sync.Mutex
	shmFiles   = map[string]*os.File{}
)

// shmFile is the process's one descriptor of the -shm file at path. A
// descriptor of a file that path no longer names (SQLite deleted the -shm
// when the last connection closed, and a later one made another) is
// replaced: its locks are on a file SQLite no longer uses.
func shmFile(path string) (*os.File, error) {
	shmFilesMu.Lock()
	defer shmFilesMu.Unlock()
	if f := shmFiles[path]; f != nil {
		held, errHeld := f.Stat()
		now, errNow := os.Stat(path)
		if errHeld == nil && errNow == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
		delete(shmFiles, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	shmFiles[path] = f
	return f, nil
}

func mapHeader(path string) (*sharedHeader, error) {
	f, err := shmFile(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || st.Size() < headerBytes {
		return nil, fmt.Errorf("map %s: no WAL-index header", path)
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, headerBytes, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	return &sharedHeader{mem: mem}, nil
}

// read returns the header when both copies agree.
func (s *sharedHeader) read() (walIndexHeader, bool) {
	var first, second walIndexHeader
	// note: atomic loads, in SQLite's order (copy 1, then copy 2), since
	// other processes write this memory
	words := (*[24]uint32)(unsafe.Pointer(&s.mem[0]))
	for i := range first {
		first[i] = atomic.LoadUint32(&words[i])
	}
	for i := range second {
		second[i] = atomic.LoadUint32(&words[12+i])
	}
	return first, first == second
}

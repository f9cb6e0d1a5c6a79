//go:build unix

package dbversion

import (
	"fmt"
	"os"
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

func mapHeader(path string) (*sharedHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() // note: the map outlives the descriptor
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

//go:build !unix

package dbversion

import "errors"

type sharedHeader struct{}

func mapHeader(string) (*sharedHeader, error) {
	return nil, errors.New("no memory map on this platform: PRAGMA data_version is used")
}

func (*sharedHeader) read() (walIndexHeader, bool) { return walIndexHeader{}, false }

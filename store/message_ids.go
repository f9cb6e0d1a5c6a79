package store

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"time"
)

// messageIDEncoding is Crockford's base32 alphabet (no I, L, O, U), which
// sorts as the bytes it encodes.
var messageIDEncoding = base32.NewEncoding("0123456789ABCDEFGHJKMNPQRSTVWXYZ").WithPadding(base32.NoPadding)

// MessageIDPrefix starts every webhook message id, as Standard Webhooks'
// examples do.
const MessageIDPrefix = "msg_"

// NewMessageID returns a webhook message id: msg_ and 26 characters that
// encode the time in milliseconds (48 bits, so ids sort by creation) and 80
// random bits, unique across instances and restores of a replica without
// any coordination.
func NewMessageID(now time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	_, _ = rand.Read(b[6:]) // note: crypto/rand.Read never fails
	return MessageIDPrefix + messageIDEncoding.EncodeToString(b[:])
}

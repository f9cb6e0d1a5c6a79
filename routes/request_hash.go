package routes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"hash"
	"io"
)

// requestHash is the idempotency hash of a submission, computed as its
// body streams in: SHA-256 of the RFC 8785 canonical form (members sorted,
// numbers and strings in one spelling, no whitespace) of
// {"externalSubmissionId": ID, "items": [...], "model": ...} ("model" only
// when the request has one), so the same JSON values give
// the same hash whatever their formatting or member order, and the hashes
// stored by earlier releases, which canonicalized the whole decoded request,
// still match. The id comes first in that form: items read before it are
// held in canonical form until it is known. A nil *requestHash hashes
// nothing.
type requestHash struct {
	sum     hash.Hash    // nil until the id is known
	skip    bool         // the request names no id: nothing to hash
	held    bytes.Buffer // canonical items read before the id
	items   int
	scratch []byte
	model   []byte // the batch's model in canonical form, nil for none
}

// setModel takes the batch's model as it was sent.
func (h *requestHash) setModel(raw jsontext.Value) {
	if h == nil || raw.Kind() == 'n' { // note: null hashes as no model, as before models
		return
	}
	h.model = append([]byte(nil), h.canonical(raw)...)
}

// identify takes the request's externalSubmissionId (nil for null).
func (h *requestHash) identify(id *string) {
	if h == nil {
		return
	}
	if id == nil || *id == "" {
		h.skip, h.held = true, bytes.Buffer{}
		return
	}
	encoded, _ := json.Marshal(*id)
	h.sum = sha256.New()
	h.sum.Write([]byte(`{"externalSubmissionId":`))
	h.sum.Write(h.canonical(encoded))
	h.sum.Write([]byte(`,"items":[`))
	h.sum.Write(h.held.Bytes())
	h.held = bytes.Buffer{}
}

// addItem takes the next item as it was sent.
func (h *requestHash) addItem(raw jsontext.Value) {
	if h == nil || h.skip {
		return
	}
	var w io.Writer = &h.held
	if h.sum != nil {
		w = h.sum
	}
	if h.items > 0 {
		w.Write([]byte{','})
	}
	h.items++
	w.Write(h.canonical(raw))
}

// finish is the hash in hex; "" when the request named no id.
func (h *requestHash) finish() string {
	if h == nil || h.sum == nil {
		return ""
	}
	h.sum.Write([]byte{']'})
	if h.model != nil {
		h.sum.Write([]byte(`,"model":`))
		h.sum.Write(h.model)
	}
	h.sum.Write([]byte{'}'})
	return hex.EncodeToString(h.sum.Sum(nil))
}

// canonical is raw in canonical form, valid until the next call. A value
// that has none (a number beyond float64's range) is only compacted.
func (h *requestHash) canonical(raw []byte) []byte {
	v := jsontext.Value(append(h.scratch[:0], raw...))
	if v.Canonicalize() != nil {
		_ = v.Compact()
	}
	h.scratch = v
	return v
}

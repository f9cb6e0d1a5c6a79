package catalog

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"strconv"
	"strings"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
)

// A product's import digest (products.importHash) is a SHA-256 of every
// column the import writes, in a canonical form: the import stores it with
// each row it writes, and a product of the file whose digest equals the
// stored one is not written at all. It is computed in three steps, so that
// each part is computed where its inputs are known and never twice:
//
//   - content: the fields the file gives as they are (decoder goroutines);
//   - linked: content plus what matching and linking decide (externalId,
//     template, brand, attributes with their option ids);
//   - the hash: linked plus the variant master, which may only be known
//     at the end of the file.
//
// A stored row (written by something else, or by the previous release,
// which stored no digest) is brought into the same canonical form by
// storedHash, so the two compare.

type digest [sha256.Size]byte

// digestVersion changes whenever the canonical form does, which makes every
// stored digest differ once, and the rows be compared again.
const digestVersion = 1

// appendField appends s with its length, so that fields cannot run together.
func appendField(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendFlag(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// contentDigest digests the fields of r that the file gives as they are;
// buf is scratch space, returned for reuse.
func contentDigest(buf []byte, r *ImportProductRow) (digest, []byte) {
	b := append(buf[:0], digestVersion)
	for _, s := range []string{r.SKU, r.GTIN, r.Name, r.Slug, r.Desc, r.Categories, r.Images, r.Files} {
		b = appendField(b, s)
	}
	b = appendFlag(b, r.Active)
	b = appendFlag(b, r.VariantAttributes != nil)
	if r.VariantAttributes != nil {
		b = appendField(b, *r.VariantAttributes)
	}
	return sha256.Sum256(b), b
}

// linkedDigest adds to content the fields that matching and linking decide:
// externalId, template, brand and the attributes with their option ids
// (given as attrs, or as the file's with options by name when attrs is nil).
// note: attributes are digested as they are, not as JSON, so an unchanged
// product's attributes are never rendered.
func linkedDigest(buf []byte, content digest, r *ImportProductRow,
	attrs []enrichment.StoredAttribute, file []Attribute, options map[string]int64) (digest, []byte) {
	b := append(buf[:0], content[:]...)
	b = appendField(b, r.ExternalID)
	b = binary.AppendVarint(b, r.Template)
	b = binary.AppendVarint(b, r.Brand)
	if attrs != nil {
		b = binary.AppendUvarint(b, uint64(len(attrs)))
		for _, a := range attrs {
			b = binary.AppendVarint(appendField(appendField(b, a.Attribute), a.Detail), a.OptionID)
		}
	} else {
		b = binary.AppendUvarint(b, uint64(len(file)))
		for _, a := range file {
			b = binary.AppendVarint(appendField(appendField(b, a.Attribute), a.Detail), options[a.Attribute])
		}
	}
	return sha256.Sum256(b), b
}

// importHash is the stored digest of a row: linked plus its variant master,
// 128 bits in hex.
func importHash(linked digest, master int64) string {
	b := binary.AppendVarint(linked[:], master)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// rowHash is the digest the import stores with a row: importHash, and for
// a row that remembers Shopify columns (products.shopify), "." and 64 bits
// of their digest. note: apart, so that a JSON file, which says nothing of
// them (and keeps them), compares with the first part alone (sameHash).
func rowHash(linked digest, master int64, shopify *string) string {
	h := importHash(linked, master)
	if shopify == nil {
		return h
	}
	sum := sha256.Sum256([]byte(*shopify))
	return h + "." + hex.EncodeToString(sum[:8])
}

// sameHash reports whether a stored digest describes the row whose digest
// is file: equal, or, for a row of a JSON file (remembers false), equal
// but for the Shopify columns the stored row keeps.
func sameHash(stored, file string, remembers bool) bool {
	if stored == file {
		return true
	}
	if remembers {
		return false
	}
	base, _, _ := strings.Cut(stored, ".")
	return base == file
}

// storedHash is the digest of a stored row, its JSON fields brought into
// the form the import writes them in.
func storedHash(r ImportProductRow) string {
	attrs, ok := decodeStoredAttributes(r.Attributes)
	if !ok {
		return "" // unreadable: equal to nothing the import writes
	}
	if attrs == nil {
		attrs = []enrichment.StoredAttribute{}
	}
	r.Categories, r.Images, r.Files = store.CanonicalStrings(r.Categories), store.CanonicalStrings(r.Images), store.CanonicalStrings(r.Files)
	if v := r.VariantAttributes; v != nil {
		if strings.TrimSpace(*v) == "null" {
			r.VariantAttributes = nil
		} else {
			text := store.CanonicalStrings(*v)
			r.VariantAttributes = &text
		}
	}
	content, buf := contentDigest(nil, &r)
	linked, _ := linkedDigest(buf, content, &r, attrs, nil, nil)
	return rowHash(linked, r.VariantMaster, r.Shopify)
}

// appendAttribute renders one attribute as products store it
// (enrichment.StoredAttribute). note: written by hand, it is the hottest
// JSON of an import.
func appendAttribute(b []byte, name, detail string, optionID int64) []byte {
	b = append(b, `{"attribute":`...)
	b, _ = jsontext.AppendQuote(b, name)
	b = append(b, `,"detail":`...)
	b, _ = jsontext.AppendQuote(b, detail)
	if optionID != 0 {
		b = append(b, `,"optionId":`...)
		b = strconv.AppendInt(b, optionID, 10)
	}
	return append(b, '}')
}

// attributesJSON renders a file's attributes as stored, giving each one
// named like one of options that option's id.
func attributesJSON(attrs []Attribute, options map[string]int64) string {
	b := make([]byte, 0, 64*len(attrs)+2)
	b = append(b, '[')
	for i, a := range attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAttribute(b, a.Attribute, a.Detail, options[a.Attribute])
	}
	return string(append(b, ']'))
}

// storedAttributesJSON renders attributes with the option ids they have.
func storedAttributesJSON(attrs []enrichment.StoredAttribute) string {
	b := make([]byte, 0, 64*len(attrs)+2)
	b = append(b, '[')
	for i, a := range attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAttribute(b, a.Attribute, a.Detail, a.OptionID)
	}
	return string(append(b, ']'))
}

// decodeStoredAttributes reads a stored attributes value; empty or null is
// none, and unreadable JSON is not ok.
func decodeStoredAttributes(raw string) ([]enrichment.StoredAttribute, bool) {
	var attrs []enrichment.StoredAttribute
	if raw == "" {
		return attrs, true
	}
	return attrs, json.Unmarshal([]byte(raw), &attrs) == nil
}

package catalog

import (
	"hash/maphash"

	"github.com/catalog-enrichment/enrichment/store"
)

// writtenKeys is what an import into an organization that had no product
// (a new merchant's first) knows of the stored products: all of them are
// its own, and it keeps a 64-bit hash of each SKU and externalId it wrote.
// A key whose hash is absent names no stored product, so a batch asks the
// database only about the keys present (a hash may collide: the database
// then answers, as it would without the filter). At 1M products it holds
// about 2M hashes, some 40 MB.
type writtenKeys struct {
	seed maphash.Seed
	set  map[uint64]struct{}
}

func newWrittenKeys() *writtenKeys {
	return &writtenKeys{seed: maphash.MakeSeed(), set: map[uint64]struct{}{}}
}

// add notes a key of a product written; "" is no key.
func (w *writtenKeys) add(key string) {
	if key != "" {
		w.set[maphash.String(w.seed, key)] = struct{}{}
	}
}

// keep returns the keys that may name a stored product (reusing keys).
func (w *writtenKeys) keep(keys []string) []string {
	out := keys[:0]
	for _, k := range keys {
		if _, ok := w.set[maphash.String(w.seed, k)]; ok {
			out = append(out, k)
		}
	}
	return out
}

// storedByKeys returns org's products that skus or externalIDs name: with
// a filter, only the keys it may have written are looked up, and none at
// all when it has written none of them.
func (im *importer) storedByKeys(skus, externalIDs []string) ([]store.StoredProduct, error) {
	if w := im.written; w != nil {
		skus, externalIDs = w.keep(skus), w.keep(externalIDs)
		if len(skus)+len(externalIDs) == 0 {
			return nil, nil
		}
	}
	return im.s.ImportProductsByKeys(im.org, skus, externalIDs)
}

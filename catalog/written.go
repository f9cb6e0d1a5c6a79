package catalog

import (
	"hash/maphash"
)

// writtenKeys is what an import into an organization that had no product
// (a new merchant's first) knows of the stored products: all of them are
// its own, and it notes each SKU and externalId it wrote in a Bloom
// filter. A key the filter has not seen names no stored product, so a
// batch asks the database only about the keys it may have seen (a false
// positive, about 1 in 2,000, only costs a lookup that finds nothing).
// note: filters of doubling size, 16 bits a key, so that memory stays
// small without knowing the count ahead: about 8 MB for the 2M keys of 1M
// products, where a Go map of their hashes made the import's peak RSS
// 362 MB instead of 210 MB
type writtenKeys struct {
	seed    maphash.Seed
	filters []bloom
}

// bloom is a Bloom filter for up to capacity keys.
type bloom struct {
	bits        []uint64
	n, capacity int
}

const (
	bloomBitsPerKey = 16
	bloomProbes     = 8
	bloomFirst      = 1 << 16 // keys of the first filter
)

func newWrittenKeys() *writtenKeys {
	return &writtenKeys{seed: maphash.MakeSeed()}
}

// add notes a key of a product written; "" is no key.
func (w *writtenKeys) add(key string) {
	if key == "" {
		return
	}
	if n := len(w.filters); n == 0 || w.filters[n-1].n >= w.filters[n-1].capacity {
		capacity := bloomFirst
		if n > 0 {
			capacity = 2 * w.filters[n-1].capacity
		}
		w.filters = append(w.filters, bloom{bits: make([]uint64, capacity*bloomBitsPerKey/64), capacity: capacity})
	}
	f := &w.filters[len(w.filters)-1]
	h := maphash.String(w.seed, key)
	for i := range uint64(bloomProbes) {
		bit := f.bit(h, i)
		f.bits[bit/64] |= 1 << (bit % 64)
	}
	f.n++
}

// mayHave says whether key may have been added.
func (w *writtenKeys) mayHave(key string) bool {
	h := maphash.String(w.seed, key)
	for fi := range w.filters {
		f := &w.filters[fi]
		all := true
		for i := range uint64(bloomProbes) {
			if bit := f.bit(h, i); f.bits[bit/64]&(1<<(bit%64)) == 0 {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// bit is the i-th probe of hash h (double hashing).
func (f *bloom) bit(h, i uint64) uint64 {
	return (h + i*(h>>32|1)) % uint64(len(f.bits)*64)
}

// keep returns the keys that may name a stored product (reusing keys).
func (w *writtenKeys) keep(keys []string) []string {
	out := keys[:0]
	for _, k := range keys {
		if w.mayHave(k) {
			out = append(out, k)
		}
	}
	return out
}

// storedByKeys returns org's products that skus or externalIDs name: with
// a filter, only the keys it may have seen are looked up, and none at all
// when it has seen none of them.
func (im *importer) storedByKeys(skus, externalIDs []string) ([]StoredProduct, error) {
	if w := im.written; w != nil {
		skus, externalIDs = w.keep(skus), w.keep(externalIDs)
		if len(skus)+len(externalIDs) == 0 {
			return nil, nil
		}
	}
	return im.tables.ImportProductsByKeys(im.org, skus, externalIDs)
}

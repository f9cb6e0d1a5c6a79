package catalog

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/catalog-enrichment/enrichment/schema"
	"github.com/pocketbase/dbx"
)

// A large import builds the products' slug index once, at its end, rather
// than entry by entry. note: slugs follow the products' names, not the
// file's order, so each new one lands on a random page of the index; once
// the index outgrows the page cache nearly every insert writes a page out
// to the WAL and reads another back. CREATE INDEX sorts instead: at 1M
// products the import took 74-86 s with the index built at its end (9-11 s
// of it the build) against 93-130 s without, in turns on one machine. The
// SKU and externalId indexes stay: the import looks products up by them.
// The index is dropped and created again inside the import's transaction,
// so a failed import leaves it as it was, and no other connection ever
// sees the table without it.

// slugIndexAfter new products written, an import may defer the slug
// index: below, the index fits in the page cache and its inserts are cheap.
var slugIndexAfter int64 = 100_000

// slugIndexWorth says whether building the slug index at the end costs
// less than keeping it up: the build reads every row of the table (rows,
// about 10 µs each at 1M), keeping it up costs about 35 µs for each of the
// remaining products once the index is large, so the import defers it
// when what is left of the file (estimated from the bytes read per
// product so far) is at least half the table.
func slugIndexWorth(created, rows, size int64, read fileRead) bool {
	if created < slugIndexAfter || size <= 0 || read.bytes <= 0 || read.products <= 0 || read.bytes >= size {
		return false
	}
	remaining := (size - read.bytes) * read.products / read.bytes
	return 2*remaining >= rows
}

// deferSlugIndex drops the slug index when slugIndexWorth says so, keeping
// its statement for buildDeferredIndex. note: the first test is
// slugIndexWorth's own, made before its query of the table so that the
// batches of a small import ask nothing.
func (im *importer) deferSlugIndex() error {
	if im.slugIndex != "" || im.opts.Size <= 0 || int64(im.res.Created) < slugIndexAfter {
		return nil
	}
	rows, err := im.tables.ProductRowsBound()
	if err != nil {
		return err
	}
	if !slugIndexWorth(int64(im.res.Created), rows, im.opts.Size, im.read) {
		return nil
	}
	im.slugIndex, err = im.tables.DropIndex(schema.IdxProductsSlug)
	return err
}

// buildDeferredIndex creates the slug index again if the import dropped it.
func (im *importer) buildDeferredIndex() error {
	if im.slugIndex == "" {
		return nil
	}
	im.bar.showStep("building the slug index")
	err := im.tables.withPragma("threads", sortThreads, func() error {
		_, err := im.tables.db().NewQuery(im.slugIndex).Execute()
		return err
	})
	if err != nil {
		return fmt.Errorf("build the deferred index %s: %w", schema.IdxProductsSlug, err)
	}
	im.slugIndex = ""
	return nil
}

// sortThreads is how many helper threads SQLite's sorter may use while it
// builds the deferred index (PRAGMA threads): the file is read by then, so
// the decoder's core is free. At 1M products the build took about 2.6 s of
// the importing goroutine instead of 3.8 (CPU profiles of the command),
// for some 15 MB more peak memory.
const sortThreads = 2

// DropIndex drops the index name and returns the statement that created
// it (as PocketBase wrote it from the collection's indexes); "" when there
// is no such index.
func (s *tables) DropIndex(name string) (string, error) {
	var stmt string
	err := s.db().NewQuery("SELECT [[sql]] FROM sqlite_master WHERE [[type]] = 'index' AND [[name]] = {:name}").
		Bind(dbx.Params{"name": name}).Row(&stmt)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the index %s: %w", name, err)
	}
	if _, err := s.db().NewQuery("DROP INDEX [[" + name + "]]").Execute(); err != nil {
		return "", fmt.Errorf("drop the index %s: %w", name, err)
	}
	return stmt, nil
}

// ProductRowsBound is at least the number of rows of the products table,
// of every organization (its largest rowid: no scan).
func (s *tables) ProductRowsBound() (int64, error) {
	var n int64
	if err := s.db().NewQuery("SELECT COALESCE(MAX(_rowid_), 0) FROM {{products}}").Row(&n); err != nil {
		return 0, fmt.Errorf("count the product rows: %w", err)
	}
	return n, nil
}

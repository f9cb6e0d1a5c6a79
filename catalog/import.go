package catalog

import (
	"bufio"
	"bytes"
	"encoding/json/jsontext"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
)

// The formats a catalog file may be in.
const (
	FormatJSON       = "json"        // the catalog file (docs/catalog-format.md)
	FormatShopifyCSV = "shopify-csv" // Shopify's product CSV (shopify.go)
)

// Options tunes an import.
type Options struct {
	Format   string    // FormatJSON (also "") or FormatShopifyCSV
	Progress io.Writer // where to draw a progress bar; nil = quiet
	Size     int64     // total bytes of the input, for percent/ETA; 0 if unknown
	// OverwriteEnriched lets the file win over values that accepted
	// revisions set, even where the file has not changed since
	OverwriteEnriched bool
	// DeactivateMissing deactivates the organization's active products
	// that the file does not contain (a full snapshot feed)
	DeactivateMissing bool
	// Now is the clock the import reads once for the created and updated
	// time of everything it writes; time.Now when nil
	Now func() time.Time
}

// Result counts what an import did: the templates, options and distinct
// brands the file lists; the products it created, updated and left as they
// were (of which keptEnriched kept at least one accepted value); and the
// products it deactivated.
type Result struct {
	Templates    int `json:"templates"`
	Options      int `json:"options"`
	Brands       int `json:"brands"`
	Created      int `json:"created"`
	Updated      int `json:"updated"`
	Unchanged    int `json:"unchanged"`
	KeptEnriched int `json:"keptEnriched"`
	Deactivated  int `json:"deactivated"`
}

// Products is the number of products the file holds.
func (r Result) Products() int {
	return r.Created + r.Updated + r.Unchanged
}

// analyzeAfter products written, the planner's statistics are refreshed.
const analyzeAfter = 1000

// Import loads a catalog file into org, all or nothing.
//
// Templates are upserted by name, brands by name, products by externalId
// within org (by SKU when a product has none). The file is decoded product
// by product and written in one transaction with raw bulk statements; a
// product equal to the stored one is not written, and values accepted
// revisions set survive a file that has not caught up with them
// (docs/catalog-format.md). References that may point forward (templates
// listed after the products, variant masters listed after their variants)
// are resolved at the end. A bad file is reported as an *Error and leaves
// the database unchanged.
func Import(app core.App, org enrichment.Org, r io.Reader, opts Options) (Result, error) {
	switch opts.Format {
	case "", FormatJSON, FormatShopifyCSV:
	default:
		return Result{}, fmt.Errorf("unknown catalog format %q (want %s or %s)", opts.Format, FormatJSON, FormatShopifyCSV)
	}
	r = withoutBOM(r)
	lr := newLineReader(r)
	bar := newProgress(opts.Progress, opts.Size)
	var res Result
	err := app.RunInTransaction(func(txApp core.App) error {
		s, t := store.New(txApp), &tables{app: txApp}
		if err := t.TakeWriteLock(); err != nil {
			return err
		}
		ok, err := s.Accounts().OrgExists(org)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no organization with id %s", org)
		}
		return t.WithoutMemoryMap(func() error {
			// decode on other goroutines while this one loads and writes
			events, done := make(chan event, 16), make(chan struct{})
			d := &decoder{bar: bar, out: events, done: done}
			if opts.Format == FormatShopifyCSV {
				d.source = func() error { return d.readShopify(r) }
			} else {
				d.lr, d.dec = lr, jsontext.NewDecoder(lr)
			}
			go d.run()
			res, err = importProducts(s, t, org, opts, bar, events)
			if err != nil {
				close(done)
				for range events { // wait for the decoder to stop
				}
			}
			return err
		})
	})
	bar.done(res, err)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			if opts.Format == FormatShopifyCSV {
				ce.Path = shopifyColumnOf(ce.Path)
			}
			return Result{}, ce
		}
		return Result{}, fmt.Errorf("import catalog into organization %s: %w", org, err)
	}
	return res, nil
}

// importProducts loads what it needs of org's stored catalog, then writes
// what the decoder sends.
func importProducts(s *store.Store, t *tables, org enrichment.Org, opts Options, bar *progress, events <-chan event) (Result, error) {
	im, err := newImporter(s, t, org, opts, bar)
	if err != nil {
		return Result{}, err
	}
	defer im.writer.Close()
	if err := im.consume(events); err != nil {
		return Result{}, err
	}
	// note: no trigger sees product inserts, nor updates of other columns
	// than the export's set (migrations/1795272700_generations.go); the
	// change feed heard of them batch by batch
	if im.res.Created+im.res.Updated+im.res.Deactivated > 0 {
		if err := s.BumpGeneration(org); err != nil {
			return Result{}, err
		}
	}
	if im.res.Created+im.res.Updated+im.res.Deactivated >= analyzeAfter {
		if err := t.AnalyzeCatalog(); err != nil {
			return Result{}, err
		}
	}
	return im.res, nil
}

// consume writes what the decoder sends, in file order, then finishes.
func (im *importer) consume(events <-chan event) error {
	for ev := range events {
		switch {
		case ev.err != nil:
			return ev.err
		case ev.hasTemplates:
			if err := im.writeTemplates(ev.templates, ev.templateLines); err != nil {
				return err
			}
		default:
			items, err := ev.chunk.wait()
			im.read = ev.chunk.read
			for _, item := range items {
				if err := im.addProduct(item); err != nil {
					return err
				}
			}
			if err != nil {
				return err
			}
		}
	}
	return im.finish()
}

func fieldPath(i int, field string) string {
	return fmt.Sprintf("products[%d].%s", i, field)
}

// stamp is the created/updated time of everything one import writes.
func (o Options) stamp() string {
	if o.Now == nil {
		return store.FormatTime(time.Now())
	}
	return store.FormatTime(o.Now())
}

// utf8BOM starts the files that spreadsheets save as "CSV UTF-8", and
// those of some Windows editors.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// withoutBOM is r past a UTF-8 byte-order mark, if it starts with one.
func withoutBOM(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM)) // note: cannot fail after a Peek of as many bytes
	}
	return br
}

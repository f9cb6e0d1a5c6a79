package catalog

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Shopify's product CSV (docs/catalog-format.md, "Shopify's product CSV"):
// one row per variant, the rows of a product together under its Handle,
// the product's own columns (Title, Body (HTML), Vendor, options' names,
// metafields) on its first row, and rows that carry only an image. The
// file is read row by row; only the rows of the current handle are held,
// and each handle becomes the products of the JSON format (one per
// variant), which the importer takes as it takes a JSON file's.

// maxHandleRows bounds the rows of one handle (Shopify allows 2,048
// variants and 250 images a product), so that a file whose rows all share
// one handle cannot hold the import's memory.
const maxHandleRows = 10_000

// utf8BOM starts the files that spreadsheets save as "CSV UTF-8".
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// shopifyRow is one row of the file (the cells the import reads, see
// shopifyColumns.project), the line it starts on and, on a handle's first
// row, its metafield cells.
type shopifyRow struct {
	cells []string
	line  int
	meta  []string
}

// readShopify reads a Shopify product CSV from r and sends its products
// to the workers and the importer in chunks, as read does for JSON.
func (d *decoder) readShopify(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		if _, err := br.Discard(len(utf8BOM)); err != nil {
			return fmt.Errorf("read catalog: %w", err)
		}
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true // note: rows keep copies of the few cells read
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return &Error{Line: 1, Column: 1, Msg: "the file is empty"}
	}
	if err != nil {
		return csvError(err, nil, 0)
	}
	cols, cerr := shopifyHeader(slices.Clone(header))
	if cerr != nil {
		return cerr
	}
	var (
		group  []shopifyRow
		handle string
		index  int // products sent so far
	)
	emit := func() error {
		ps, lines, err := cols.products(handle, group)
		if err != nil {
			return err
		}
		for k := range ps {
			if d.chunk == nil {
				d.chunk = &chunk{pre: make([]Product, 0, chunkSize), items: make([]rawItem, 0, chunkSize), ready: make(chan struct{})}
			}
			d.chunk.pre = append(d.chunk.pre, ps[k])
			d.chunk.items = append(d.chunk.items, rawItem{index: index, line: lines[k]})
			index++
			if len(d.chunk.items) == chunkSize && !d.flush() {
				return errStopped
			}
		}
		group = group[:0]
		return nil
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return csvError(err, rec, len(header))
		}
		line, _ := cr.FieldPos(0)
		row := shopifyRow{cells: cols.project(rec), line: line}
		h := cell(row.cells, cols.handle)
		if h == "" {
			if blank(rec) {
				continue
			}
			return &Error{Path: "Handle", Line: line, Msg: "required"}
		}
		if len(group) > 0 && h != handle {
			if err := emit(); err != nil {
				return err
			}
		}
		if len(group) == maxHandleRows {
			return &Error{Path: "Handle", Line: line, Msg: fmt.Sprintf("more than %d rows of handle %q", maxHandleRows, h)}
		}
		if len(group) == 0 {
			row.meta = cols.metafieldValues(rec)
		}
		handle = h
		group = append(group, row)
		d.bar.update(cr.InputOffset(), index)
	}
	if len(group) > 0 {
		if err := emit(); err != nil {
			return err
		}
	}
	d.bar.update(cr.InputOffset(), index)
	if !d.flush() {
		return errStopped
	}
	return nil
}

// csvError places a CSV syntax error (or a row of the wrong width, rec) in
// the file; other errors (reading the input) are wrapped as they are.
func csvError(err error, rec []string, width int) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("read catalog: %w", err)
	}
	msg := pe.Err.Error()
	switch {
	case errors.Is(pe.Err, csv.ErrFieldCount):
		return &Error{Line: pe.StartLine, Msg: fmt.Sprintf("a row of %d columns, where the header has %d", len(rec), width)}
	case errors.Is(pe.Err, csv.ErrQuote), errors.Is(pe.Err, csv.ErrBareQuote):
		msg += ` (a cell that holds a quote, comma or line break is quoted, and its quotes doubled: "a ""b"" c")`
	}
	if pe.StartLine != pe.Line {
		msg += fmt.Sprintf("; the row starts on line %d", pe.StartLine)
	}
	return &Error{Line: pe.Line, Column: pe.Column, Msg: msg}
}

// blank reports a row of empty cells.
func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

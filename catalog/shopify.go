package catalog

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
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

// shopifyRow is one row of the file (the cells the import reads, see
// shopifyColumns.project), the line it starts on and, on a handle's first
// row, its metafield cells.
type shopifyRow struct {
	cells []string
	line  int
	meta  []string
}

// shopifyReader is the state of reading one Shopify CSV: the rows of the
// current handle, and how many products were sent.
type shopifyReader struct {
	d      *decoder
	cr     *csv.Reader
	cols   *shopifyColumns
	width  int // the header's
	group  []shopifyRow
	handle string
	index  int
	// done: the line of each handle's first row, for the handles whose
	// rows ended, so that one coming back later is refused
	done map[string]int
}

// readShopify reads a Shopify product CSV from r and sends its products
// to the workers and the importer in chunks, as read does for JSON.
func (d *decoder) readShopify(r io.Reader) error {
	sr, err := d.openShopify(r)
	if err != nil {
		return err
	}
	for {
		rec, err := sr.cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return csvError(err, rec, sr.width)
		}
		if err := sr.row(rec); err != nil {
			return err
		}
	}
	if err := sr.emit(); err != nil {
		return err
	}
	d.advance(sr.cr.InputOffset(), sr.index)
	if !d.flush() {
		return errStopped
	}
	return nil
}

// openShopify reads the header row (Import has skipped a byte-order mark).
func (d *decoder) openShopify(r io.Reader) (*shopifyReader, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true // note: rows keep copies of the few cells read
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &Error{Line: 1, Column: 1, Msg: "the file is empty"}
	}
	if err != nil {
		return nil, csvError(err, nil, 0)
	}
	if err := invalidUTF8(cr, header); err != nil {
		return nil, err
	}
	// note: lines that end in a bare CR (an old Mac format) read as one
	// header row and no product, which with --deactivate-missing would
	// deactivate the whole catalog
	for i, h := range header {
		if strings.ContainsRune(h, '\r') {
			return nil, &Error{Line: 1, Column: i + 1, Msg: "the lines end in a bare carriage return (CR, an old Mac format): save the file as \"CSV UTF-8\", whose lines end in LF or CRLF"}
		}
	}
	cols, cerr := shopifyHeader(slices.Clone(header))
	if cerr != nil {
		return nil, cerr
	}
	return &shopifyReader{d: d, cr: cr, cols: cols, width: len(header), done: map[string]int{}}, nil
}

// row takes the next row of the file: a handle's rows are kept until the
// next handle begins.
func (sr *shopifyReader) row(rec []string) error {
	if err := invalidUTF8(sr.cr, rec); err != nil {
		return err
	}
	line, _ := sr.cr.FieldPos(0)
	row := shopifyRow{cells: sr.cols.project(rec), line: line}
	h := cell(row.cells, sr.cols.handle)
	if h == "" {
		if blank(rec) {
			return nil
		}
		return &Error{Path: "Handle", Line: line, Msg: "required"}
	}
	if len(sr.group) > 0 && h != sr.handle {
		if err := sr.emit(); err != nil {
			return err
		}
	}
	if first, again := sr.done[h]; again {
		return &Error{Path: "Handle", Line: line, Msg: fmt.Sprintf(
			"handle %q again, after other handles (its rows began on line %d): the rows of one handle must follow each other", h, first)}
	}
	if len(sr.group) == maxHandleRows {
		return &Error{Path: "Handle", Line: line, Msg: fmt.Sprintf("more than %d rows of handle %q", maxHandleRows, h)}
	}
	if len(sr.group) == 0 {
		row.meta = sr.cols.metafieldValues(rec)
	}
	sr.handle = h
	sr.group = append(sr.group, row)
	sr.d.advance(sr.cr.InputOffset(), sr.index)
	return nil
}

// emit sends the products of the handle read (if any) on their way.
func (sr *shopifyReader) emit() error {
	if len(sr.group) == 0 {
		return nil
	}
	hp, err := sr.cols.products(sr.handle, sr.group)
	if err != nil {
		return err
	}
	sr.done[sr.handle] = sr.group[0].line
	d := sr.d
	for k := range hp.products {
		if d.chunk == nil {
			d.chunk = &chunk{pre: make([]Product, 0, chunkSize), memory: make([]string, 0, chunkSize),
				items: make([]rawItem, 0, chunkSize), ready: make(chan struct{})}
		}
		d.chunk.pre = append(d.chunk.pre, hp.products[k])
		d.chunk.memory = append(d.chunk.memory, hp.memory[k])
		d.chunk.items = append(d.chunk.items, rawItem{index: sr.index, line: hp.lines[k]})
		sr.index++
		if len(d.chunk.items) == chunkSize && !d.flush() {
			return errStopped
		}
	}
	sr.group = sr.group[:0]
	return nil
}

// invalidUTF8 refuses a row (rec, just read by cr) with a cell that is not
// valid UTF-8, naming the line and column of the first bad byte: stored,
// such bytes would make the organization's JSON export fail.
func invalidUTF8(cr *csv.Reader, rec []string) error {
	for i, c := range rec {
		if utf8.ValidString(c) {
			continue
		}
		line, col := cr.FieldPos(i)
		bad := 0
		for bad < len(c) {
			r, size := utf8.DecodeRuneInString(c[bad:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			bad += size
		}
		before := c[:bad]
		if nl := strings.LastIndexByte(before, '\n'); nl >= 0 {
			line += strings.Count(before, "\n")
			col = utf8.RuneCountInString(before[nl+1:]) + 1
		} else {
			col += utf8.RuneCountInString(before)
		}
		return &Error{Line: line, Column: col, Msg: "invalid UTF-8 (a Shopify CSV is UTF-8: save it as \"CSV UTF-8\")"}
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

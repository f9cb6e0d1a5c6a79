package catalog

import (
	"bytes"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"unicode/utf8"

	"github.com/catalog-enrichment/enrichment/enrichment"
)

// The file is read on its own goroutine, which never touches the database:
// it checks the JSON's syntax, decodes the (small) template list, and cuts
// the product list into chunks of raw products, which workers (one per
// core) decode, check and render. The importer receives, in file order,
// the templates and the chunks (waiting for each chunk's worker), then the
// channel closes. An error ends the stream: the first one in file order is
// the one reported.

// chunkSize products travel together from the reader to the importer.
const chunkSize = 128

// event is one step of the file: the template list, a chunk of products or
// the error that ended reading.
type event struct {
	templates     []Template
	templateLines []int // where each template starts
	hasTemplates  bool
	chunk         *chunk
	err           error
}

// chunk is a run of products: raw as read (or, from a CSV file, already
// read into products), then decoded by a worker.
type chunk struct {
	raw []byte    // the products' JSON, one after the other
	pre []Product // the products when read from another format than JSON
	// memory: what each product of a Shopify CSV remembers (products.shopify)
	memory []string
	items  []rawItem     // where each one is in raw and in the file
	read   fileRead      // how far the file was read when the chunk was cut
	out    []decoded     // the decoded products, up to the first bad one
	err    error         // the first bad product's problem
	ready  chan struct{} // closed once decoded
}

// fileRead is how far an import has read its file: bytes and products.
// What is left of a file of known size follows (slugIndexWorth).
type fileRead struct {
	bytes, products int64
}

// rawItem is one product of a chunk.
type rawItem struct {
	end              int // its JSON is raw[previous end:end]
	index, line, col int // col: 0 when unknown
}

// decoded is a product with its place in the file, the fields of its row
// that do not depend on the database already rendered, and their digest.
type decoded struct {
	p           Product
	index, line int
	row         ImportProductRow
	content     digest
	// set by the importer: the options of the product's template, and the
	// attributes when they are not the file's (accepted ones kept)
	options map[string]int64
	attrs   []enrichment.StoredAttribute
}

// attributesJSON renders the product's attributes as stored.
func (q *decoded) attributesJSON() string {
	if q.attrs != nil {
		return storedAttributesJSON(q.attrs)
	}
	return attributesJSON(q.p.Attributes, q.options)
}

// decoder reads one catalog file.
type decoder struct {
	lr      *lineReader
	dec     *jsontext.Decoder
	source  func() error // reads the file and sends its events; nil: the JSON format (read)
	bar     *progress
	out     chan<- event
	done    <-chan struct{} // closed when the importer stops listening
	work    chan *chunk     // chunks for the workers
	workers sync.WaitGroup
	chunk   *chunk
	soFar   fileRead // how far the file is read
}

// advance notes that read bytes and products of the file are read.
func (d *decoder) advance(read int64, products int) {
	d.soFar = fileRead{bytes: read, products: int64(products)}
	d.bar.update(read, products)
}

// run reads the file, sending events until the end, an error or done.
func (d *decoder) run() {
	d.work = make(chan *chunk, 2*runtime.GOMAXPROCS(0))
	for range runtime.GOMAXPROCS(0) {
		d.workers.Go(func() {
			var buf []byte
			for c := range d.work {
				buf = c.decode(buf)
			}
		})
	}
	defer func() {
		close(d.work)
		d.workers.Wait()
		close(d.out)
	}()
	read := d.source
	if read == nil {
		read = d.read
	}
	if err := read(); err != nil {
		d.send(event{err: err})
	}
}

// send delivers ev; false when the importer has stopped listening.
func (d *decoder) send(ev event) bool {
	select {
	case d.out <- ev:
		return true
	case <-d.done:
		return false
	}
}

// errStopped ends decoding when the importer has failed.
var errStopped = errors.New("import stopped")

// read decodes the top-level object.
func (d *decoder) read() error {
	lr, dec := d.lr, d.dec
	tok, err := dec.ReadToken()
	if errors.Is(err, io.EOF) {
		return &Error{Line: 1, Column: 1, Msg: "the file is empty"}
	}
	if err != nil {
		return lr.jsonError(err)
	}
	if tok.Kind() != '{' {
		return lr.errorAt(dec.InputOffset()-1, "", `a catalog file is a JSON object {"attributeTemplates": [...], "products": [...]}`)
	}
	for {
		switch dec.PeekKind() {
		case '}':
			if _, err := dec.ReadToken(); err != nil {
				return lr.jsonError(err)
			}
			end := dec.InputOffset()
			if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
				return lr.errorAt(lr.itemStart(end), "", "unexpected data after the catalog object")
			}
			return nil
		case 0: // malformed: reading reports why
			_, err := dec.ReadToken()
			return lr.jsonError(err)
		}
		name, err := dec.ReadToken()
		if err != nil {
			return lr.jsonError(err)
		}
		switch name.String() {
		case "attributeTemplates":
			err = d.readTemplates()
		case "products":
			err = d.readProducts()
		default:
			if err = dec.SkipValue(); err != nil {
				err = lr.jsonError(err)
			}
		}
		if err != nil {
			return err
		}
	}
}

// readTemplates decodes the (small) template list, remembering where each
// template starts.
func (d *decoder) readTemplates() error {
	ev := event{hasTemplates: true}
	err := d.readArray("attributeTemplates", func(i int, off int64) error {
		var t Template
		if err := json.UnmarshalDecode(d.dec, &t); err != nil {
			return d.lr.jsonError(err)
		}
		if err := t.validate(i); err != nil {
			err.Line = d.lr.lineAt(d.lr.itemStart(off))
			return err
		}
		ev.templates = append(ev.templates, t)
		ev.templateLines = append(ev.templateLines, d.lr.lineAt(d.lr.itemStart(off)))
		return nil
	})
	if err != nil {
		return err
	}
	if !d.send(ev) {
		return errStopped
	}
	return nil
}

// readProducts checks the product list's syntax and cuts it into chunks
// of raw products for the workers.
func (d *decoder) readProducts() error {
	lr := d.lr
	err := d.readArray("products", func(i int, off int64) error {
		raw, err := d.dec.ReadValue()
		if err != nil {
			return lr.jsonError(err)
		}
		if d.chunk == nil {
			d.chunk = &chunk{raw: (*rawBuffers.Get().(*[]byte))[:0], items: make([]rawItem, 0, chunkSize), ready: make(chan struct{})}
		}
		line, col := lr.position(lr.itemStart(off))
		d.chunk.raw = append(d.chunk.raw, raw...)
		d.chunk.items = append(d.chunk.items, rawItem{end: len(d.chunk.raw), index: i, line: line, col: col})
		if len(d.chunk.items) == chunkSize && !d.flush() {
			return errStopped
		}
		d.advance(lr.n, i+1)
		return nil
	})
	if err == nil && !d.flush() {
		return errStopped
	}
	return err
}

// flush hands the products read so far to the workers and, in file order,
// to the importer.
func (d *decoder) flush() bool {
	c := d.chunk
	if c == nil {
		return true
	}
	d.chunk = nil
	c.read = d.soFar
	select {
	case d.work <- c:
	case <-d.done:
		return false
	}
	return d.send(event{chunk: c})
}

// decode decodes, checks and renders the chunk's products, stopping at the
// first bad one; buf is scratch space, returned for reuse.
func (c *chunk) decode(buf []byte) []byte {
	defer func() {
		if c.pre == nil {
			rawBuffers.Put(&c.raw) // the decoded products hold copies
		}
		c.raw, c.pre, c.memory = nil, nil, nil
		close(c.ready)
	}()
	c.out = make([]decoded, 0, len(c.items))
	start := 0
	for k, it := range c.items {
		raw := c.raw[start:it.end]
		start = it.end
		var p Product
		if c.pre != nil {
			p = c.pre[k]
		} else if !decodeProduct(raw, &p) {
			p = Product{}
			if err := json.Unmarshal(raw, &p, checkedSyntax...); err != nil {
				c.err = it.semanticError(raw, err)
				return buf
			}
		}
		if err := p.validate(it.index); err != nil {
			err.Line = it.line
			c.err = err
			return buf
		}
		item, next, err := render(p, it.index, it.line, buf)
		buf = next
		if err != nil {
			c.err = err
			return buf
		}
		if c.memory != nil {
			item.row.Shopify = &c.memory[k]
		}
		c.out = append(c.out, item)
	}
	return buf
}

// rawBuffers recycles the chunks' raw JSON, most of what reading allocates.
var rawBuffers = sync.Pool{New: func() any { return new([]byte) }}

// checkedSyntax skips, when a worker decodes a product, the checks of the
// syntax that reading it did already: duplicate names and invalid UTF-8.
var checkedSyntax = []json.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// wait returns the chunk's products once decoded, and the problem of the
// first bad one.
func (c *chunk) wait() ([]decoded, error) {
	<-c.ready
	return c.out, c.err
}

// semanticError places an error of decoding product raw (a value of the
// wrong type: its syntax was checked while reading) in the file.
func (it rawItem) semanticError(raw []byte, err error) error {
	var sem *json.SemanticError
	if !errors.As(err, &sem) {
		return fmt.Errorf("decode products[%d]: %w", it.index, err)
	}
	path := fmt.Sprintf("products[%d]", it.index)
	if rest := pathOf(sem.JSONPointer); rest != "" {
		path += "." + rest
	}
	before := raw[:min(max(sem.ByteOffset, 0), int64(len(raw)))]
	line, col := it.line, 0
	if nl := bytes.LastIndexByte(before, '\n'); nl >= 0 {
		if line > 0 {
			line += bytes.Count(before, []byte{'\n'})
		}
		col = utf8.RuneCount(before[nl+1:]) + 1
	} else if it.col > 0 {
		col = it.col + utf8.RuneCount(before)
	}
	return &Error{Path: path, Line: line, Column: col, Msg: typeMessage(sem)}
}

// render prepares the fields of the row that do not depend on the
// database; buf is scratch space, returned for reuse.
func render(p Product, i, line int, buf []byte) (decoded, []byte, error) {
	item := decoded{p: p, index: i, line: line, row: ImportProductRow{
		SKU: p.SKU, ExternalID: p.ExternalID, GTIN: p.GTIN, Name: p.Name, Slug: p.Slug, Desc: p.Description,
		Active: active(p.Active),
	}}
	fields := []struct {
		name string
		dst  *string
		v    []string
	}{
		{"categories", &item.row.Categories, p.Categories},
		{"images", &item.row.Images, p.Images},
		{"files", &item.row.Files, p.Files},
	}
	for _, f := range fields {
		text, err := jsonText(f.v)
		if err != nil {
			return item, buf, &Error{Path: fieldPath(i, f.name), Line: line, Msg: err.Error()}
		}
		*f.dst = text
	}
	size := 2 // the attributes are rendered later, once linked to options
	for _, a := range p.Attributes {
		size += len(a.Attribute) + len(a.Detail) + 64
	}
	if size > maxJSON {
		return item, buf, &Error{Path: fieldPath(i, "attributes"), Line: line, Msg: fmt.Sprintf("larger than %d bytes of JSON", maxJSON)}
	}
	if p.VariantAttributes != nil {
		text, err := jsonText(*p.VariantAttributes)
		if err != nil {
			return item, buf, &Error{Path: fieldPath(i, "variantAttributes"), Line: line, Msg: err.Error()}
		}
		item.row.VariantAttributes = &text
	}
	item.content, buf = contentDigest(buf, &item.row)
	return item, buf, nil
}

// readArray reads the array (or null) of top-level key name, calling item
// to decode each element, with its index and the offset before it.
func (d *decoder) readArray(name string, item func(i int, off int64) error) error {
	lr, dec := d.lr, d.dec
	switch kind := dec.PeekKind(); kind {
	case 'n', '[':
	case 0:
		_, err := dec.ReadToken()
		return lr.jsonError(err)
	default:
		return lr.errorAt(lr.itemStart(dec.InputOffset()), name, "want an array, got "+jsonKindName(kind))
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() == 'n' {
		return lr.jsonError(err)
	}
	for i := 0; ; i++ {
		switch dec.PeekKind() {
		case ']':
			_, err := dec.ReadToken()
			return lr.jsonError(err)
		case 0:
			_, err := dec.ReadToken()
			return lr.jsonError(err)
		}
		if err := item(i, dec.InputOffset()); err != nil {
			return err
		}
	}
}

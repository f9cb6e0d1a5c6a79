package catalog

import (
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"fmt"
	"io"
)

// The file is decoded on its own goroutine, which never touches the
// database: it sends the importer, in file order, the templates and chunks
// of checked products, then closes the channel. An error ends the stream.

// chunkSize products travel together from the decoder to the importer.
const chunkSize = 128

// event is one step of the file: the template list, a chunk of products or
// the error that ended decoding.
type event struct {
	templates     []Template
	templateLines []int // where each template starts
	hasTemplates  bool
	products      []decoded
	err           error
}

// decoded is a product with its place in the file and the JSON fields
// that do not depend on the database already rendered.
type decoded struct {
	p                         Product
	index, line               int
	categories, images, files string
	variantAttributes         *string
}

// decoder reads one catalog file.
type decoder struct {
	lr    *lineReader
	dec   *jsontext.Decoder
	bar   *progress
	out   chan<- event
	done  <-chan struct{} // closed when the importer stops listening
	chunk []decoded
}

// run decodes the file, sending events until the end, an error or done.
func (d *decoder) run() {
	defer close(d.out)
	if err := d.read(); err != nil {
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

// readProducts decodes and checks the product list one product at a time,
// sending them in chunks.
func (d *decoder) readProducts() error {
	lr := d.lr
	err := d.readArray("products", func(i int, off int64) error {
		var p Product
		if err := json.UnmarshalDecode(d.dec, &p); err != nil {
			return lr.jsonError(err)
		}
		line := lr.lineAt(lr.itemStart(off))
		if err := p.validate(i); err != nil {
			err.Line = line
			return err
		}
		item, err := render(p, i, line)
		if err != nil {
			return err
		}
		d.chunk = append(d.chunk, item)
		if len(d.chunk) == chunkSize && !d.flush() {
			return errStopped
		}
		d.bar.update(lr.n, i+1)
		return nil
	})
	if err == nil && !d.flush() {
		return errStopped
	}
	return err
}

// flush sends the products decoded so far.
func (d *decoder) flush() bool {
	if len(d.chunk) == 0 {
		return true
	}
	ok := d.send(event{products: d.chunk})
	d.chunk = make([]decoded, 0, chunkSize)
	return ok
}

// render prepares the JSON fields that do not depend on the database.
func render(p Product, i, line int) (decoded, error) {
	item := decoded{p: p, index: i, line: line}
	fields := []struct {
		name string
		dst  *string
		v    []string
	}{
		{"categories", &item.categories, p.Categories},
		{"images", &item.images, p.Images},
		{"files", &item.files, p.Files},
	}
	for _, f := range fields {
		text, err := jsonText(f.v)
		if err != nil {
			return item, &Error{Path: fieldPath(i, f.name), Line: line, Msg: err.Error()}
		}
		*f.dst = text
	}
	size := 2 // the attributes are rendered later, once linked to options
	for _, a := range p.Attributes {
		size += len(a.Attribute) + len(a.Detail) + 64
	}
	if size > maxJSON {
		return item, &Error{Path: fieldPath(i, "attributes"), Line: line, Msg: fmt.Sprintf("larger than %d bytes of JSON", maxJSON)}
	}
	if p.VariantAttributes != nil {
		text, err := jsonText(*p.VariantAttributes)
		if err != nil {
			return item, &Error{Path: fieldPath(i, "variantAttributes"), Line: line, Msg: err.Error()}
		}
		item.variantAttributes = &text
	}
	return item, nil
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

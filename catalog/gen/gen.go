// Package gen generates deterministic, realistic product catalogs in the
// service's JSON import format: attribute templates followed by products
// with attributes, brands, categories, images, files and variant families.
//
// The same Options always produce the same bytes, on every platform; Write
// streams products one at a time, so even very large catalogs need little
// memory.
package gen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Options sizes a generated catalog; the same Options always give the same bytes.
type Options struct {
	Products  int // total products, variants included
	Templates int // attribute templates, all listed in the output
	Brands    int // distinct brands; every brand is used when there are enough products
	Seed      uint64
	// ImageBase prefixes the products' image URLs, each SKU-n.svg below it;
	// "" keeps the placeholders https://img.example/products/SKU-n.jpg,
	// whose host does not exist
	ImageBase string
}

// DemoImages is where the demo serves its catalog's images (SKU-n.svg), a
// path on the server's own origin, so the demo needs no network.
const DemoImages = "/demo/images/"

// placeholderImage is an image URL of a catalog without ImageBase.
const placeholderImage = "https://img.example/products/%s-%d.jpg"

// Demo returns the options for the `demo` command: a few hundred products
// (300), 6 templates and 24 brands, with images the demo serves itself.
func Demo() Options {
	return Options{Products: 300, Templates: 6, Brands: 24, Seed: 8, ImageBase: DemoImages}
}

// Bench returns the options for the load harness: 100 000 products,
// 20 templates and 500 brands.
func Bench() Options {
	return Options{Products: 100_000, Templates: 20, Brands: 500, Seed: 42}
}

func (o Options) validate() error {
	var errs []error
	if o.Products < 1 {
		errs = append(errs, fmt.Errorf("products must be at least 1, got %d", o.Products))
	}
	if o.Templates < 1 {
		errs = append(errs, fmt.Errorf("templates must be at least 1, got %d", o.Templates))
	}
	if o.Brands < 1 {
		errs = append(errs, fmt.Errorf("brands must be at least 1, got %d", o.Brands))
	}
	if len(errs) > 0 {
		return fmt.Errorf("gen: invalid options: %w", errors.Join(errs...))
	}
	return nil
}

// Write streams the catalog as JSON to w without holding all products in
// memory: templates first, then products one per line, masters before their
// variants. It returns the first error from validating opt or writing to w.
func Write(w io.Writer, opt Options) error {
	if err := opt.validate(); err != nil {
		return err
	}
	g := newGenerator(opt)
	s := newStream(w)
	s.raw("{\"attributeTemplates\":[\n")
	for i := range g.templates {
		s.item(i, g.templates[i].json)
	}
	s.raw("\n],\n\"products\":[\n")
	n := 0
	for g.emitted < opt.Products && s.err == nil {
		for _, p := range g.nextUnit() {
			s.item(n, p)
			n++
		}
	}
	s.raw("\n]}\n")
	return s.flush()
}

// stream writes JSON values separated by ",\n" through a buffered writer and
// remembers the first error.
type stream struct {
	bw  *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

func newStream(w io.Writer) *stream {
	s := &stream{bw: bufio.NewWriterSize(w, 256<<10)}
	s.enc = json.NewEncoder(&s.buf)
	s.enc.SetEscapeHTML(false)
	return s
}

func (s *stream) raw(text string) {
	if s.err == nil {
		_, s.err = s.bw.WriteString(text)
	}
}

// item writes v as the i-th element of the current JSON array.
func (s *stream) item(i int, v any) {
	if i > 0 {
		s.raw(",\n")
	}
	if s.err != nil {
		return
	}
	s.buf.Reset()
	if s.err = s.enc.Encode(v); s.err != nil {
		return
	}
	b := s.buf.Bytes()
	_, s.err = s.bw.Write(b[:len(b)-1]) // Encode appends a newline
}

func (s *stream) flush() error {
	if s.err != nil {
		return s.err
	}
	return s.bw.Flush()
}

package gen

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"testing"
)

func generate(t testing.TB, opt Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, opt); err != nil {
		t.Fatalf("Write(%+v): %v", opt, err)
	}
	return buf.Bytes()
}

func TestDeterministic(t *testing.T) {
	opt := Options{Products: 3000, Templates: 8, Brands: 40, Seed: 7}
	a, b := generate(t, opt), generate(t, opt)
	if !bytes.Equal(a, b) {
		t.Fatal("same Options gave different bytes")
	}
	opt.Seed++
	if bytes.Equal(a, generate(t, opt)) {
		t.Fatal("different Seed gave identical bytes")
	}
	if !bytes.Equal(generate(t, Demo()), generate(t, Demo())) {
		t.Fatal("Demo() is not deterministic")
	}
}

// TestGolden pins the output of a small catalog, so that a change of
// platform, Go version or table content that alters the bytes is noticed.
// After an intended change to the generator, update the hash.
func TestGolden(t *testing.T) {
	const want = "b7b2b2ca9ca25bef65c8577f40e959951ee861806812fdbaacf8996da6f2c02c"
	sum := sha256.Sum256(generate(t, Options{Products: 2000, Templates: 25, Brands: 60, Seed: 1}))
	if got := fmt.Sprintf("%x", sum); got != want {
		t.Fatalf("catalog hash %s, want %s (update it if the change was intended)", got, want)
	}
}

func TestInvalidOptions(t *testing.T) {
	for _, opt := range []Options{
		{Products: 0, Templates: 1, Brands: 1},
		{Products: 1, Templates: 0, Brands: 1},
		{Products: 1, Templates: 1, Brands: 0},
		{Products: -5, Templates: 1, Brands: 1},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, opt); err == nil {
			t.Errorf("Write(%+v) succeeded, want an error", opt)
		}
		if buf.Len() != 0 {
			t.Errorf("Write(%+v) wrote %d bytes despite the error", opt, buf.Len())
		}
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n += len(p); w.n > 1<<20 {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	if err := Write(&failingWriter{}, Bench()); err != io.ErrClosedPipe {
		t.Fatalf("Write to a failing writer: got %v, want %v", err, io.ErrClosedPipe)
	}
}

func TestSmallCatalogs(t *testing.T) {
	for _, opt := range []Options{
		{Products: 1, Templates: 1, Brands: 1},
		{Products: 2, Templates: 45, Brands: 3, Seed: 3},
		{Products: 50, Templates: 3, Brands: 100, Seed: 9},
	} {
		t.Run(fmt.Sprint(opt), func(t *testing.T) { checkCatalog(t, opt, false) })
	}
}

func TestDemo(t *testing.T) { checkCatalog(t, Demo(), false) }

// TestShares checks the Bench shape on a 20k-product run, including shares.
func TestShares(t *testing.T) {
	opt := Bench()
	opt.Products = 20_000
	checkCatalog(t, opt, true)
}

func TestBench(t *testing.T) {
	if testing.Short() {
		t.Skip("full Bench catalog skipped in -short mode")
	}
	checkCatalog(t, Bench(), true)
}

func TestGTINCheckDigit(t *testing.T) {
	// Known-good GTINs (EAN-13 padded to 14 digits).
	for _, g := range []string{"04006381333931", "00012345678905", "09780201379624"} {
		if !validGTIN(g) {
			t.Errorf("validGTIN(%q) = false", g)
		}
		if got := gs1CheckDigit(g[:13]); got != int(g[13]-'0') {
			t.Errorf("gs1CheckDigit(%q) = %d, want %c", g[:13], got, g[13])
		}
	}
	if validGTIN("04006381333932") {
		t.Error("validGTIN accepted a wrong check digit")
	}
}

// countingWriter passes writes on to w and counts the bytes.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

// BenchmarkWriteBench writes the Bench catalog to io.Discard; run it with
// -benchtime=1x. It also reports the catalog's size.
func BenchmarkWriteBench(b *testing.B) {
	b.ReportAllocs()
	var size int64
	for b.Loop() {
		w := countingWriter{w: io.Discard}
		if err := Write(&w, Bench()); err != nil {
			b.Fatal(err)
		}
		size = w.n
	}
	b.ReportMetric(float64(size), "bytes/catalog")
}

package routes

// Microbenchmarks of what POST /products/submissions does with a body
// before it touches the database:
//
//	GOTOOLCHAIN=auto go test ./routes -run '^$' -bench ReadSubmission -benchmem

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchSubmissionBody is a realistic 1000-item batch (about 0.5-1 KB an
// item): most items propose a name and attributes, many a description,
// some files, a few send a field that is not enrichable.
func benchSubmissionBody() []byte {
	rng := rand.New(rand.NewPCG(7, 8))
	sentence := "Built for everyday use, it keeps its shape after many washes and seasons. "
	var b strings.Builder
	b.WriteString(`{"externalSubmissionId":"vendor-x-2024-06-01-001","items":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		sku := fmt.Sprintf("SKU-%06d", rng.IntN(100_000)+1)
		fmt.Fprintf(&b, `{"sku":%q,"confidence":%d,"name":"Vendor title for %s"`, sku, 30+rng.IntN(71), sku)
		if rng.IntN(10) < 6 {
			fmt.Fprintf(&b, `,"description":%q`, strings.Repeat(sentence, 3+rng.IntN(5)))
		}
		if rng.IntN(10) < 8 {
			fmt.Fprintf(&b, `,"attributes":[{"attribute":"Color","detail":"Deep Red","option":{"optionId":%d}},`+
				`{"attribute":"Care","detail":"Machine wash 30 °C","option":null}]`, 1+rng.IntN(300))
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, `,"files":["https://docs.example/vendor/%s-datasheet.pdf"]`, sku)
		}
		if rng.IntN(10) == 0 {
			b.WriteString(`,"gtin":"04012345678901"`)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkReadSubmission1000 reads a 1000-item body as the handler does
// (a dry run: no hash) and validates it into proposals.
func BenchmarkReadSubmission1000(b *testing.B) {
	benchReadSubmission(b, benchSubmissionBody(), false)
}

// BenchmarkReadSubmission1000Hashed adds the idempotency hash, which every
// stored submission with an externalSubmissionId pays for.
func BenchmarkReadSubmission1000Hashed(b *testing.B) {
	benchReadSubmission(b, benchSubmissionBody(), true)
}

func benchReadSubmission(b *testing.B, body []byte, hashed bool) {
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req, err := readSubmission(fuzzBodyEvent(body), hashed)
		if err != nil {
			b.Fatal(err)
		}
		proposals, msg, errs := req.validate()
		if errs != nil || len(proposals) != 1000 || (req.hash == "") == hashed {
			b.Fatalf("validate: %d proposals, %s %v", len(proposals), msg, errs)
		}
	}
	b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "items/s")
}

package cmd

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// demoProduct is what the demo proposals are made from.
type demoProduct struct {
	SKU         string
	Name        string
	Description string
	Attributes  []enrichment.StoredAttribute
	Files       []string
}

// demoProposals submits, once per data folder (when the demo vendor does not
// exist yet), about fifty proposals from two vendors for the demo's products,
// and decides a few of them, so that 40 wait for a reviewer. Two pending
// proposals are for products that changed after they were made.
func demoProposals(app core.App, org enrichment.Org) error {
	clients, err := store.New(app).Accounts().Clients(org)
	if err != nil {
		return err
	}
	for _, c := range clients {
		if c.Name == demoVendorName {
			return nil
		}
	}
	return app.RunInTransaction(func(txApp core.App) error {
		products, err := demoProducts(txApp, org)
		if err != nil {
			return err
		}
		st := store.New(txApp)
		vendor, err := demoClient(st, org, demoVendorName)
		if err != nil {
			return err
		}
		copywriter, err := demoClient(st, org, demoCopyName)
		if err != nil {
			return err
		}

		rng := rand.New(rand.NewPCG(8, 2024))
		var ai []enrichment.Proposal
		for i, p := range products[:demoVendorOnes] {
			ai = append(ai, demoProposal(rng, i, p))
		}
		// proposals accepted before others for the same products were reviewed
		for _, i := range []int{0, 3} {
			name := demoName(products[i], 1)
			ai = append(ai, enrichment.Proposal{SKU: products[i].SKU, Confidence: ptr(97), Fields: enrichment.Fields{Name: &name}})
		}
		results, err := st.Proposals().Submit(org, vendor, ai, store.SubmitOptions{ExternalID: "demo-vendor-ai-001"})
		if err != nil {
			return fmt.Errorf("submit demo proposals: %w", err)
		}
		decide := map[int]string{demoVendorOnes: "accepted", demoVendorOnes + 1: "accepted"}
		for i := 30; i < 40; i++ {
			switch c := ai[i].Confidence; {
			case i == 31:
				decide[i] = "partial"
			case c == nil || *c < 50 || i == 36:
				decide[i] = enrichment.StatusRejected
			default:
				decide[i] = enrichment.StatusAccepted
			}
		}
		for i, how := range decide {
			if err := demoDecide(txApp, results[i], ai[i], how); err != nil {
				return err
			}
		}

		var copywriting []enrichment.Proposal
		for _, p := range products[demoVendorOnes:] {
			d := demoDescription(p.Description, 3)
			copywriting = append(copywriting, enrichment.Proposal{SKU: p.SKU, Fields: enrichment.Fields{Description: &d}})
		}
		if _, err := st.Proposals().Submit(org, copywriter, copywriting, store.SubmitOptions{ExternalID: "demo-copy-studio-001"}); err != nil {
			return fmt.Errorf("submit demo copy proposals: %w", err)
		}
		return nil
	})
}

// demoClient creates a vendor's API client; its key is never shown, as the
// demo's vendors only exist to have proposed something.
func demoClient(st *store.Store, org enrichment.Org, name string) (int64, error) {
	key := apikey.New("") // never shown nor used
	return st.Accounts().CreateClient(org, store.NewClient{Name: name, Scopes: enrichment.Scopes, KeyHash: key.Hash, KeyPrefix: key.Shown})
}

// demoProducts picks demoPicks of org's active products, spread over the catalog.
func demoProducts(app core.App, org enrichment.Org) ([]demoProduct, error) {
	recs, err := app.FindRecordsByFilter("products", "organization = {:org} && active = true", "", 0, 0,
		dbx.Params{"org": string(org)})
	if err != nil {
		return nil, fmt.Errorf("demo products: %w", err)
	}
	// note: product ids are numeric (hooks/ids.go); by number, not text
	slices.SortFunc(recs, func(a, b *core.Record) int { return cmp.Compare(len(a.Id), len(b.Id))*2 + cmp.Compare(a.Id, b.Id) })
	if len(recs) < demoPicks {
		return nil, fmt.Errorf("demo products: %d active, want at least %d", len(recs), demoPicks)
	}
	step := len(recs) / demoPicks
	out := make([]demoProduct, 0, demoPicks)
	for i := 0; i < demoPicks; i++ {
		r := recs[i*step]
		p := demoProduct{SKU: r.GetString("sku"), Name: r.GetString("name"), Description: r.GetString("description")}
		if err := r.UnmarshalJSONField("attributes", &p.Attributes); err != nil {
			return nil, fmt.Errorf("attributes of %s: %w", p.SKU, err)
		}
		if err := r.UnmarshalJSONField("files", &p.Files); err != nil {
			return nil, fmt.Errorf("files of %s: %w", p.SKU, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// demoProposal makes the i-th vendor proposal for p: the fields vary with i,
// the confidence is mostly high, sometimes missing.
func demoProposal(rng *rand.Rand, i int, p demoProduct) enrichment.Proposal {
	prop := enrichment.Proposal{SKU: p.SKU}
	switch n := rng.IntN(10); {
	case n == 0:
		// sent without confidence
	case n < 4:
		prop.Confidence = ptr(15 + rng.IntN(65))
	default:
		prop.Confidence = ptr(80 + rng.IntN(20))
	}
	f := &prop.Fields
	name := demoName(p, 0)
	slug := demoSlug(name)
	description := demoDescription(p.Description, i)
	attributes := demoAttributes(p.Attributes, i)
	files := demoFiles(p, i)
	switch i % 6 {
	case 0:
		f.Name, f.Slug = &name, &slug
	case 1:
		f.Description = &description
	case 2:
		f.Attributes = &attributes
	case 3:
		f.Name, f.Description, f.Attributes = &name, &description, &attributes
	case 4:
		f.Attributes, f.Files = &attributes, &files
	case 5:
		f.Description, f.Files = &description, &files
	}
	return prop
}

// demoName drops the model code from a product name and names its colour,
// as a vendor's clean-up might; variant 1 instead adds a season.
func demoName(p demoProduct, variant int) string {
	words := strings.Fields(p.Name)
	if len(words) > 2 && strings.ContainsAny(words[len(words)-1], "0123456789") {
		words = words[:len(words)-1]
	}
	name := strings.Join(words, " ")
	if variant == 1 {
		return name + " (2025 Edition)"
	}
	for _, a := range p.Attributes {
		if a.Attribute == "Color" && a.Detail != "" {
			return name + ", " + a.Detail
		}
	}
	return name + " by " + words[0]
}

// demoSlug makes a URL slug of a name.
func demoSlug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// demoRewrites are the small wording changes of the demo's descriptions.
var demoRewrites = [][2]string{
	{"was chosen deliberately", "was carefully selected"},
	{"which keeps it versatile", "which keeps it easy to pair"},
	{"a detail that owners appreciate", "a detail owners love"},
	{"so it leaves little to be desired", "so it covers every need"},
	{"it sits right where most buyers want it", "it hits the sweet spot for most buyers"},
	{"Meet the", "Discover the"},
	{"Careful workmanship", "Meticulous workmanship"},
	{"a choice that has proven itself in everyday use", "a choice proven in daily use"},
	{"which fits well with the rest of the design", "which matches the rest of the design"},
	{"it strikes a sensible balance", "it strikes a smart balance"},
}

// demoDescription rewords two phrases of d (the i-th ones that occur) and
// adds a sentence when fewer occur.
func demoDescription(d string, i int) string {
	changed := 0
	for k := range demoRewrites {
		r := demoRewrites[(i+k)%len(demoRewrites)]
		if changed < 2 && strings.Contains(d, r[0]) {
			d = strings.Replace(d, r[0], r[1], 1)
			changed++
		}
	}
	if changed < 2 {
		d += " Ships in recyclable packaging."
	}
	return d
}

var (
	demoColors        = []string{"Navy", "Forest Green", "Charcoal", "Burgundy", "Sand", "Sky Blue"}
	demoNewAttributes = []enrichment.StoredAttribute{
		{Attribute: "Warranty", Detail: "2 years"},
		{Attribute: "Country of Origin", Detail: "Portugal"},
		{Attribute: "Care Instructions", Detail: "Wipe clean with a damp cloth"},
		{Attribute: "Recycled Content", Detail: "30 %"},
	}
)

// demoAttributes proposes a changed colour (or another changed value), one
// new attribute and, now and then, an emptied one.
func demoAttributes(attrs []enrichment.StoredAttribute, i int) []enrichment.StoredAttribute {
	var out []enrichment.StoredAttribute
	has := map[string]bool{}
	for _, a := range attrs {
		has[a.Attribute] = true
	}
	for _, a := range attrs {
		if a.Attribute == "Color" {
			c := demoColors[i%len(demoColors)]
			if c == a.Detail {
				c = demoColors[(i+1)%len(demoColors)]
			}
			out = append(out, enrichment.StoredAttribute{Attribute: a.Attribute, Detail: c, OptionID: a.OptionID})
			break
		}
	}
	if len(out) == 0 && len(attrs) > 0 {
		a := attrs[i%len(attrs)]
		out = append(out, enrichment.StoredAttribute{Attribute: a.Attribute, Detail: a.Detail + " (verified)", OptionID: a.OptionID})
	}
	for k := range demoNewAttributes {
		if n := demoNewAttributes[(i+k)%len(demoNewAttributes)]; !has[n.Attribute] {
			out = append(out, n)
			break
		}
	}
	if i%4 == 0 {
		for _, a := range attrs {
			if a.Attribute == "Certification" && a.Detail != "" {
				out = append(out, enrichment.StoredAttribute{Attribute: a.Attribute, Detail: "", OptionID: a.OptionID})
			}
		}
	}
	return out
}

// demoFiles proposes a new document (a safety sheet, or a declaration of
// conformity when there is one already) and, every other time, a newer data
// sheet in place of the old one.
func demoFiles(p demoProduct, i int) []string {
	files := []string{}
	for _, f := range p.Files {
		if i%2 == 0 && strings.Contains(f, "/datasheets/") {
			f = strings.TrimSuffix(f, ".pdf") + "-v2.pdf"
		}
		files = append(files, f)
	}
	doc := "https://docs.example/safety/" + p.SKU + ".pdf"
	if slices.Contains(files, doc) {
		doc = "https://docs.example/conformity/" + p.SKU + ".pdf"
	}
	return append(files, doc)
}

// demoDecide decides a demo revision as the system reviewer: accepted,
// rejected or "partial" (its first proposed field only).
func demoDecide(app core.App, result enrichment.SubmissionResult, p enrichment.Proposal, how string) error {
	if result.RevisionID == nil {
		return fmt.Errorf("demo proposal for %s was not stored (%s)", result.SKU, result.Status)
	}
	rev, err := app.FindRecordById("revisions", store.FormatID(*result.RevisionID))
	if err != nil {
		return err
	}
	switch how {
	case "partial":
		rev.Set("status", enrichment.StatusAccepted)
		rev.Set("approvedFields", p.Fields.Names()[:1])
	default:
		rev.Set("status", how)
	}
	if err := app.Save(rev); err != nil {
		return fmt.Errorf("decide demo revision %d: %w", *result.RevisionID, err)
	}
	return nil
}

// demoReviewer creates the demo organization's reviewer or resets its password.
func demoReviewer(app core.App, org enrichment.Org, password string) error {
	rec, err := app.FindAuthRecordByEmail("reviewers", demoReviewerMail)
	if err != nil {
		col, cerr := app.FindCachedCollectionByNameOrId("reviewers")
		if cerr != nil {
			return errors.Join(err, cerr)
		}
		rec = core.NewRecord(col)
		rec.SetEmail(demoReviewerMail)
		rec.Set("name", "Demo Reviewer")
	}
	rec.Set("organization", string(org))
	rec.SetPassword(password)
	if err := app.Save(rec); err != nil {
		return fmt.Errorf("save demo reviewer: %w", err)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

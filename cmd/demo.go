package cmd

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/catalog"
	"github.com/catalog-enrichment/enrichment/catalog/gen"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/routes"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/security"
	"github.com/spf13/cobra"
)

// Demo fixtures: one organization, its catalog, a superuser for the
// dashboard, a reviewer for the reviewers' page and proposals to review.
const (
	demoOrgName      = "Demo Outfitters"
	demoKeyName      = "demo"
	demoAdminMail    = "admin@demo.example"
	demoReviewerMail = "reviewer@demo.example"
)

func demoCommand(app core.App) *cobra.Command {
	var addr string
	c := &cobra.Command{
		Use:   "demo",
		Short: "Serve an embedded demo catalog with a ready API key (data in ./pb_demo)",
		Long: "Serve an embedded demo catalog with a ready API key (data in ./pb_demo unless --dir says otherwise).\n" +
			"The catalog, vendors' proposals and a reviewer are created on the first run and kept; every\n" +
			"run prints a fresh API key, fresh dashboard and reviewer passwords, and revokes the previous\n" +
			"run's key.",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			// note: before anything is changed (this run's key revokes the last
			// one's) or printed: a taken address is the commonest failure
			if err := addressFree(addr); err != nil {
				return err
			}
			if err := migrated(app); err != nil {
				return err
			}
			org, products, err := demoCatalog(app)
			if err != nil {
				return err
			}
			key, err := demoKey(app, org)
			if err != nil {
				return err
			}
			password := security.RandomString(16)
			if err := demoSuperuser(app, password); err != nil {
				return err
			}
			if err := demoProposals(app, org); err != nil {
				return err
			}
			reviewerPassword := security.RandomString(16)
			if err := demoReviewer(app, org, reviewerPassword); err != nil {
				return err
			}
			printDemoBanner(c.OutOrStdout(), addr, app.DataDir(), org, products, key, password, reviewerPassword)
			routes.RegisterDemoImages(app)
			return apis.Serve(app, apis.ServeConfig{HttpAddr: addr})
		},
	}
	c.Flags().StringVar(&addr, "http", "127.0.0.1:8090", "the address to serve on")
	return c
}

// addressFree tells whether the demo can listen on addr.
func addressFree(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot serve on %s: %w (is another server there? --http chooses another address)", addr, err)
	}
	return ln.Close()
}

// demoCatalog returns the demo organization and its active product count,
// importing the embedded catalog on the first run, and again on a folder
// whose products still show the placeholder images of earlier releases.
func demoCatalog(app core.App) (enrichment.Org, int, error) {
	st := store.New(app)
	org, err := st.Accounts().OrgByName(demoOrgName)
	switch {
	case errors.Is(err, enrichment.ErrNotFound):
		org, err = importDemoCatalog(app)
	case err == nil:
		err = refreshDemoImages(app, org)
	}
	if err != nil {
		return "", 0, err
	}
	n, err := st.Catalog().CountActiveProducts(org)
	return org, n, err
}

// importDemoCatalog creates the demo organization with the embedded
// catalog, in one transaction: a failed import leaves no empty organization.
func importDemoCatalog(app core.App) (org enrichment.Org, err error) {
	err = app.RunInTransaction(func(txApp core.App) error {
		id, err := store.New(txApp).Accounts().CreateOrg(demoOrgName)
		if err != nil {
			return err
		}
		org = enrichment.Org(store.FormatID(id))
		return importDemo(txApp, org, gen.Demo())
	})
	return org, err
}

// oldDemoImages starts the image URLs of demo folders made before the demo
// served its own images; their host does not exist.
const oldDemoImages = "https://img.example/products/"

// refreshDemoImages imports the embedded catalog again into a demo folder
// whose products have old image URLs: the import writes only what differs
// (the images) and keeps the values accepted revisions set.
func refreshDemoImages(app core.App, org enrichment.Org) error {
	old, err := app.CountRecords("products", dbx.HashExp{"organization": string(org)}, dbx.Like("images", oldDemoImages))
	if err != nil {
		return fmt.Errorf("demo products with old images: %w", err)
	}
	if old == 0 {
		return nil
	}
	return importDemo(app, org, gen.Demo())
}

// importDemo imports the generated catalog of opt (the demo's: gen.Demo())
// into org.
func importDemo(app core.App, org enrichment.Org, opt gen.Options) error {
	r, w := io.Pipe()
	go func() { w.CloseWithError(gen.Write(w, opt)) }()
	defer r.Close()
	if _, err := catalog.Import(app, org, r, catalog.Options{}); err != nil {
		return fmt.Errorf("import demo catalog: %w", err)
	}
	return nil
}

// demoKey gives the demo's API client (every scope, the default rate limit)
// a fresh key: it rotates the one client the demo keeps, with no grace, so
// the previous run's key stops working and no stale clients pile up.
func demoKey(app core.App, org enrichment.Org) (string, error) {
	st := store.New(app)
	key, err := newKey()
	if err != nil {
		return "", err
	}
	clients, err := st.Accounts().Clients(org)
	if err != nil {
		return "", err
	}
	for _, c := range clients {
		if c.Name == demoKeyName && c.Active {
			_, err := st.Accounts().RotateKey(c.ID, key.Hash, key.Shown, 0)
			return key.Raw, err
		}
	}
	_, err = st.Accounts().CreateClient(org, store.NewClient{Name: demoKeyName, Scopes: enrichment.Scopes,
		KeyHash: key.Hash, KeyPrefix: key.Shown, RateLimit: enrichment.DefaultRateLimit})
	return key.Raw, err
}

// demoSuperuser creates the dashboard's superuser or resets its password.
func demoSuperuser(app core.App, password string) error {
	rec, err := app.FindAuthRecordByEmail(core.CollectionNameSuperusers, demoAdminMail)
	if err != nil {
		col, cerr := app.FindCachedCollectionByNameOrId(core.CollectionNameSuperusers)
		if cerr != nil {
			return errors.Join(err, cerr)
		}
		rec = core.NewRecord(col)
		rec.SetEmail(demoAdminMail)
	}
	rec.SetPassword(password)
	if err := app.Save(rec); err != nil {
		return fmt.Errorf("save demo superuser: %w", err)
	}
	return nil
}

func printDemoBanner(w io.Writer, addr, dataDir string, org enrichment.Org, products int, key, password, reviewerPassword string) {
	base := "http://" + addr
	if host, port, err := net.SplitHostPort(addr); err == nil && (host == "" || host == "0.0.0.0" || host == "::") {
		base = "http://127.0.0.1:" + port
	}
	lines := []string{
		"",
		fmt.Sprintf("Catalog Enrichment demo: %d active products of %q (organization %s), data in %s", products, demoOrgName, org, dataDir),
		"",
		"  API:        " + base + "/api/enrichment",
		"  API key:    " + key,
		"  Dashboard:  " + base + "/_/   (" + demoAdminMail + " / " + password + ")",
		"  Reviewers:  " + base + "/   (" + demoReviewerMail + " / " + reviewerPassword + ")",
		"",
		"Try:",
		"  curl -s -H 'X-Api-Client-Key: " + key + "' '" + base + "/api/enrichment/products?pageSize=2'",
		"",
		"Serving at " + base + " since " + time.Now().Format("15:04:05") + "; Ctrl+C stops.",
		"",
	}
	fmt.Fprintln(w, strings.Join(lines, "\n"))
}

// Demo vendors: their proposals give the reviewers' page something to show.
const (
	demoVendorName = "Demo Vendor AI"
	demoCopyName   = "Demo Copy Studio"
	demoPicks      = 50 // products that receive a proposal
	demoVendorOnes = 44 // of them from demoVendorName; the rest from demoCopyName
)

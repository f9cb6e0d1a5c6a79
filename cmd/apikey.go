package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/catalog-enrichment/enrichment/apikey"
	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

func apikeyCommand(app core.App) *cobra.Command {
	cmd := group("apikey", "Issue, list, rotate and revoke API keys")
	cmd.AddCommand(apikeyCreate(app), apikeyList(app), apikeyRotate(app), apikeyRevoke(app), apikeySelect(app))
	return cmd
}

func apikeyCreate(app core.App) *cobra.Command {
	var org, scopes, name string
	var asJSON bool
	var rateLimit int
	var sel enrichment.Selection
	c := &cobra.Command{
		Use: "create --org ORG_ID [--scopes catalog:read,catalog:submit] [--name LABEL] [--rate-limit N] " +
			"[--templates T,...] [--brands B,...] [--categories C,...]",
		Short:        "Create an API key and print it (shown this once only)",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			granted, err := parseScopes(scopes)
			if err != nil {
				return err
			}
			if rateLimit < 0 {
				return fmt.Errorf("--rate-limit must be 0 (unlimited) or more, got %d", rateLimit)
			}
			orgID, err := migratedOrg(app, org)
			if err != nil {
				return err
			}
			key, err := newKey()
			if err != nil {
				return err
			}
			id, err := store.New(app).Accounts().CreateClient(orgID, store.NewClient{
				Name: strings.TrimSpace(name), Scopes: granted, KeyHash: key.Hash, KeyPrefix: key.Shown,
				RateLimit: rateLimit, Catalog: trimmedSelection(sel),
			})
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(c.OutOrStdout(), struct {
					ID  int64  `json:"id"`
					Key string `json:"key"`
				}{id, key.Raw})
			}
			fmt.Fprintln(c.OutOrStdout(), key.Raw)
			fmt.Fprintf(c.ErrOrStderr(), "API key %d for organization %s, scopes %s. It is shown only now: store it safely.\n",
				id, orgID, strings.Join(granted, ","))
			return nil
		},
	}
	c.Flags().StringVar(&org, "org", "", "the organization id (required)")
	c.Flags().StringVar(&scopes, "scopes", enrichment.ScopeRead, "comma-separated scopes: "+strings.Join(enrichment.Scopes, ", "))
	c.Flags().StringVar(&name, "name", "", "a label for the key, e.g. the vendor's name")
	c.Flags().IntVar(&rateLimit, "rate-limit", enrichment.DefaultRateLimit,
		"requests per second, with bursts of twice as many; 0 means unlimited")
	c.Flags().BoolVar(&asJSON, "json", false, `print {"id":...,"key":...}`)
	catalogFlags(c, &sel)
	return c
}

// catalogFlags adds the flags of a client's catalog selection.
func catalogFlags(c *cobra.Command, sel *enrichment.Selection) {
	c.Flags().StringSliceVar(&sel.Templates, "templates", nil, "only products of these attribute templates (ids or names, comma-separated)")
	c.Flags().StringSliceVar(&sel.Brands, "brands", nil, "only products of these brands (ids or names, comma-separated)")
	c.Flags().StringSliceVar(&sel.Categories, "categories", nil, "only products in one of these categories (names, comma-separated)")
}

func apikeySelect(app core.App) *cobra.Command {
	var client string
	var sel enrichment.Selection
	var asJSON bool
	c := &cobra.Command{
		Use:   "select --client KEY_ID [--templates T,...] [--brands B,...] [--categories C,...]",
		Short: "Choose the products an API client's keys see (no lists: the whole catalog)",
		Long: "Choose the catalog an API client's keys see: the active products of the given templates, brands\n" +
			"and categories (a product must match every list given, and one value of each). With no list the\n" +
			"client sees the whole catalog again. Templates and brands are ids or names; a name or id the\n" +
			"organization does not have is refused. The client's change feed gains an upsert for each product\n" +
			"the change brings in and a removal for each it takes out.",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			id, err := parseKeyID(client)
			if err != nil {
				return err
			}
			if err := migrated(app); err != nil {
				return err
			}
			got, err := store.New(app).Accounts().SelectCatalog(id, trimmedSelection(sel))
			if errors.Is(err, enrichment.ErrNotFound) {
				return fmt.Errorf("no API key with id %d", id)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(c.OutOrStdout(), struct {
					ID      int64                `json:"id"`
					Catalog enrichment.Selection `json:"catalog"`
				}{id, got})
			}
			if got.Whole() {
				fmt.Fprintf(c.OutOrStdout(), "API key %d sees the whole catalog.\n", id)
				return nil
			}
			fmt.Fprintf(c.OutOrStdout(), "API key %d sees the active products of templates %s, brands %s, categories %s.\n", id,
				listOrAny(got.Templates), listOrAny(got.Brands), listOrAny(got.Categories))
			return nil
		},
	}
	c.Flags().StringVar(&client, "client", "", "the API key's id (required)")
	c.Flags().BoolVar(&asJSON, "json", false, `print {"id":...,"catalog":{"templates":[...],"brands":[...],"categories":[...]}}`)
	catalogFlags(c, &sel)
	return c
}

// trimmedSelection is sel with each entry trimmed: "--templates 'Shoes,
// Shirts'" names Shirts.
func trimmedSelection(sel enrichment.Selection) enrichment.Selection {
	trim := func(l []string) []string {
		if l == nil {
			return nil
		}
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = strings.TrimSpace(s)
		}
		return out
	}
	return enrichment.Selection{Templates: trim(sel.Templates), Brands: trim(sel.Brands), Categories: trim(sel.Categories)}
}

// listOrAny renders a selection's list, "any" when it is empty.
func listOrAny(l []string) string {
	if len(l) == 0 {
		return "any"
	}
	return strings.Join(l, ", ")
}

// defaultGrace is how long a rotated-out key keeps working by default: a
// day, for a vendor to deploy the new one.
const defaultGrace = 24 * time.Hour

func apikeyRotate(app core.App) *cobra.Command {
	var grace time.Duration
	var asJSON bool
	c := &cobra.Command{
		Use:   "rotate KEY_ID [--grace 24h]",
		Short: "Issue a new key for an API client; the old one keeps working for the grace period",
		Long: "Issue a new key for an API client and print it (shown this once only). The client keeps its\n" +
			"id, scopes, rate limit and history; the old key keeps working until the grace period\n" +
			"(default 24h; 0 ends it at once) is over, so the vendor can switch without downtime.\n" +
			"A key rotated out earlier keeps its own grace period: rotating twice ends neither.",
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			id, err := parseKeyID(args[0])
			if err != nil {
				return err
			}
			if grace < 0 {
				return fmt.Errorf("--grace must not be negative, got %s", grace)
			}
			if err := migrated(app); err != nil {
				return err
			}
			key, err := newKey()
			if err != nil {
				return err
			}
			client, err := store.New(app).Accounts().RotateKey(id, key.Hash, key.Shown, grace)
			if errors.Is(err, enrichment.ErrNotFound) {
				return fmt.Errorf("no API key with id %d", id)
			}
			if err != nil {
				return err
			}
			if asJSON {
				out := map[string]any{"id": id, "key": key.Raw, "previousKeyExpiresAt": nil}
				if !client.PreviousKeyExpiresAt.IsZero() {
					out["previousKeyExpiresAt"] = client.PreviousKeyExpiresAt.UTC().Format(time.RFC3339)
				}
				return printJSON(c.OutOrStdout(), out)
			}
			fmt.Fprintln(c.OutOrStdout(), key.Raw)
			until := "now: the old key no longer works"
			if !client.PreviousKeyExpiresAt.IsZero() {
				until = client.PreviousKeyExpiresAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(c.ErrOrStderr(), "New key for API key %d (organization %s); the old key works until %s. It is shown only now: store it safely.\n",
				id, client.Org, until)
			return nil
		},
	}
	c.Flags().DurationVar(&grace, "grace", defaultGrace, "how long the old key keeps working, e.g. 1h, 72h, 0")
	c.Flags().BoolVar(&asJSON, "json", false, `print {"id":...,"key":...,"previousKeyExpiresAt":...}`)
	return c
}

func apikeyList(app core.App) *cobra.Command {
	var org string
	var asJSON bool
	c := &cobra.Command{
		Use:          "list --org ORG_ID",
		Short:        "List an organization's API keys (never the keys themselves)",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			orgID, err := migratedOrg(app, org)
			if err != nil {
				return err
			}
			clients, err := store.New(app).Accounts().Clients(orgID)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(c.OutOrStdout(), clients)
			}
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tNAME\tKEY\tSCOPES\tRATE/S\tACTIVE\tLAST USED")
			for _, cl := range clients {
				lastUsed := "never"
				if !cl.LastUsedAt.IsZero() {
					lastUsed = cl.LastUsedAt.UTC().Format(time.RFC3339)
				}
				rate := "unlimited"
				if cl.RateLimit > 0 {
					rate = strconv.Itoa(cl.RateLimit)
				}
				fmt.Fprintf(w, "%d\t%s\t%s…\t%s\t%s\t%t\t%s\n", cl.ID, cl.Name, cl.KeyPrefix,
					strings.Join(cl.Scopes, ","), rate, cl.Active, lastUsed)
			}
			return w.Flush()
		},
	}
	c.Flags().StringVar(&org, "org", "", "the organization id (required)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return c
}

func apikeyRevoke(app core.App) *cobra.Command {
	return &cobra.Command{
		Use:          "revoke KEY_ID",
		Short:        "Revoke an API key: it is refused (401) from the next request on",
		Args:         cobra.ExactArgs(1),
		SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			id, err := parseKeyID(args[0])
			if err != nil {
				return err
			}
			if err := migrated(app); err != nil {
				return err
			}
			client, err := store.New(app).Accounts().RevokeClient(id)
			if errors.Is(err, enrichment.ErrNotFound) {
				return fmt.Errorf("no API key with id %d", id)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "Revoked API key %d (%s…) of organization %s.\n", id, client.KeyPrefix, client.Org)
			return nil
		},
	}
}

// parseKeyID reads a KEY_ID argument.
func parseKeyID(raw string) (int64, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("KEY_ID must be a key's id as apikey list shows it, got %q", raw)
	}
	return id, nil
}

// parseScopes reads a comma-separated scope list; unknown scopes are errors.
func parseScopes(raw string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(raw, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(enrichment.Scopes, s) {
			return nil, fmt.Errorf("unknown scope %q (known: %s)", s, strings.Join(enrichment.Scopes, ", "))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--scopes needs at least one scope")
	}
	return out, nil
}

// newKey makes a key tagged with the instance's shard, if it has one
// (apikey.ShardEnv).
func newKey() (apikey.Key, error) {
	shard, err := apikey.ShardFromEnv()
	if err != nil {
		return apikey.Key{}, err
	}
	return apikey.New(shard), nil
}

package cmd

import (
	"fmt"

	"github.com/catalog-enrichment/enrichment/enrichment"
	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

func metricsCommand(app core.App) *cobra.Command {
	metrics := group("metrics", "Maintain the acceptance metrics' counters")
	var org string
	recount := &cobra.Command{
		Use:   "recount [--org ORG_ID]",
		Short: "Count the revisions again into the metric counters",
		Long: "The service keeps the acceptance metrics' counters in the transactions that change revisions.\n" +
			"Revisions written around it (SQL by hand, a table restored on its own) leave them wrong;\n" +
			"recount rebuilds them from the revisions, for one organization or all of them.",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := migrated(app); err != nil {
				return err
			}
			st := store.New(app)
			var orgs []enrichment.Org
			if org != "" {
				o, err := existingOrg(app, org)
				if err != nil {
					return err
				}
				orgs = []enrichment.Org{o}
			} else {
				var err error
				if orgs, err = st.Accounts().Organizations(); err != nil {
					return err
				}
			}
			for _, o := range orgs {
				if err := st.Metrics().RecountMetrics(o); err != nil {
					return err
				}
			}
			fmt.Fprintf(c.OutOrStdout(), "Recounted the metrics of %d organization(s).\n", len(orgs))
			return nil
		},
	}
	recount.Flags().StringVar(&org, "org", "", "one organization's id (default: every organization)")
	metrics.AddCommand(recount)
	return metrics
}

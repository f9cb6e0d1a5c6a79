package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/catalog-enrichment/enrichment/store"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

func orgCommand(app core.App) *cobra.Command {
	org := group("org", "Manage merchant organizations")

	var name string
	var asJSON bool
	create := &cobra.Command{
		Use:          "create --name NAME",
		Short:        "Create an organization and print its id",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(c *cobra.Command, _ []string) error {
			name = strings.TrimSpace(name)
			if name == "" {
				return errors.New("--name is required")
			}
			if err := migrated(app); err != nil {
				return err
			}
			id, err := store.New(app).Accounts().CreateOrg(name)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(c.OutOrStdout(), map[string]any{"id": id, "name": name})
			}
			fmt.Fprintln(c.OutOrStdout(), id)
			return nil
		},
	}
	create.Flags().StringVar(&name, "name", "", "the organization's name (required)")
	create.Flags().BoolVar(&asJSON, "json", false, `print {"id":...,"name":...}`)
	org.AddCommand(create)
	return org
}

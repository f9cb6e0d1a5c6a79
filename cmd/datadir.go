package cmd

// DefaultDataDir is the data folder when --dir is not given: the demo keeps
// its catalog in a folder of its own, so it never mixes with real data.
func DefaultDataDir(args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		if len(a) > 0 && a[0] != '-' {
			if a == "demo" {
				return "pb_demo"
			}
			break // the first word is the subcommand
		}
	}
	return "pb_data"
}

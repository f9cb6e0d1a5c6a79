package cmd

import "strings"

// rootValueFlags are PocketBase's root flags that take a value, which may
// come as the next word ("--queryTimeout 60").
var rootValueFlags = map[string]bool{"--dir": true, "--encryptionEnv": true, "--queryTimeout": true}

// DefaultDataDir is the data folder when --dir is not given: the demo keeps
// its catalog in a folder of its own, so it never mixes with real data.
func DefaultDataDir(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "pb_data"
		case strings.HasPrefix(a, "-"):
			if rootValueFlags[a] {
				i++ // skip the flag's value
			}
		case a == "demo":
			return "pb_demo"
		default:
			return "pb_data" // the first word is another subcommand
		}
	}
	return "pb_data"
}

package cmd

import "strings"

// rootValueFlags are PocketBase's root flags that take a value, which may
// come as the next word ("--queryTimeout 60").
var rootValueFlags = map[string]bool{"--dir": true, "--encryptionEnv": true, "--queryTimeout": true}

// Subcommand is the subcommand that args (without the program name) run:
// their first word that is neither a root flag nor its value; "" for none.
// Some choices are made before the command line is parsed: the data folder's
// default, and what `serve` and `restore` need before PocketBase opens it.
func Subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ""
		case strings.HasPrefix(a, "-"):
			if rootValueFlags[a] {
				i++ // skip the flag's value
			}
		default:
			return a
		}
	}
	return ""
}

// DefaultDataDir is the data folder when --dir is not given: the demo keeps
// its catalog in a folder of its own, so it never mixes with real data.
func DefaultDataDir(args []string) string {
	if Subcommand(args) == "demo" {
		return "pb_demo"
	}
	return "pb_data"
}

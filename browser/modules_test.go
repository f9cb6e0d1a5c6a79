package browser

import (
	"os"
	"path"
	"regexp"
	"slices"
	"testing"
)

// staticImport matches a module's static imports (import … from './x.js').
var staticImport = regexp.MustCompile(`(?m)^import\s[^;]*?\sfrom\s+'\./([^']+)';`)

// modulePreload matches the page's <link rel="modulepreload" href="…">.
var modulePreload = regexp.MustCompile(`<link rel="modulepreload" href="([^"]+)">`)

// staticGraph is every module that module imports, directly or through
// others, by their static imports, in ../pb_public.
func staticGraph(t *testing.T, module string) []string {
	t.Helper()
	seen := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		src, err := os.ReadFile(path.Join("../pb_public", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range staticImport.FindAllStringSubmatch(string(src), -1) {
			dep := path.Join(path.Dir(name), m[1])
			if !seen[dep] {
				seen[dep] = true
				visit(dep)
			}
		}
	}
	visit(module)
	return slices.Sorted(func(yield func(string) bool) {
		for m := range seen {
			if !yield(m) {
				return
			}
		}
	})
}

// TestModulePreloads: the page names, for the browser to fetch at once
// with the page, exactly the modules its script imports (so none waits for
// the module that imports it, and none is fetched that the first view does
// not run), and the views beside the queue (overview, decided, trust) are
// not among them: their code is read when they are first shown.
func TestModulePreloads(t *testing.T) {
	html, err := os.ReadFile("../pb_public/index.html")
	if err != nil {
		t.Fatal(err)
	}
	var preloaded []string
	for _, m := range modulePreload.FindAllStringSubmatch(string(html), -1) {
		preloaded = append(preloaded, m[1])
	}
	slices.Sort(preloaded)
	graph := staticGraph(t, "app.js")
	if !slices.Equal(preloaded, graph) {
		t.Errorf("index.html preloads\n%v\nbut app.js imports\n%v", preloaded, graph)
	}
	for _, later := range []string{"overview.js", "decided.js", "trust.js", "policies.js", "audits.js", "rollback.js"} {
		if slices.Contains(graph, later) {
			t.Errorf("%s is imported with the page; it should be read when its view is shown", later)
		}
	}
}

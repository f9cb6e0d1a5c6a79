package browser

import (
	"os"
	"path"
	"regexp"
	"slices"
	"testing"
)

// staticImport matches a module's static imports (import … from './x.js'
// or '../lib/x.js'), relative to the module.
var staticImport = regexp.MustCompile(`(?m)^import\s[^;]*?\sfrom\s+'(\.\.?/[^']+)';`)

// dynamicImport matches a module's imports read when needed (import('./x.js')).
var dynamicImport = regexp.MustCompile(`import\('(\.\.?/[^']+)'\)`)

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
	for _, later := range []string{"views/overview.js", "views/decided.js", "views/trust.js", "views/policies.js", "views/audits.js", "views/rollback.js"} {
		if slices.Contains(graph, later) {
			t.Errorf("%s is imported with the page; it should be read when its view is shown", later)
		}
	}
}

// imports are the modules module imports, statically or when needed, as
// paths in ../pb_public.
func imports(t *testing.T, module string) []string {
	t.Helper()
	src, err := os.ReadFile(path.Join("../pb_public", module))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, re := range []*regexp.Regexp{staticImport, dynamicImport} {
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			out = append(out, path.Join(path.Dir(module), m[1]))
		}
	}
	return out
}

// TestModuleGraphHasNoCycle: no module of the page imports, directly or
// through others, a module that imports it, so that each reads as a unit
// and the order in which modules run is the order of their imports.
func TestModuleGraphHasNoCycle(t *testing.T) {
	const (
		unseen = iota
		open   // on the path being walked
		done
	)
	state := map[string]int{}
	var walk func(module string, path []string)
	walk = func(module string, path []string) {
		switch state[module] {
		case open:
			t.Errorf("import cycle: %v", append(path, module))
			return
		case done:
			return
		}
		state[module] = open
		for _, dep := range imports(t, module) {
			walk(dep, append(path, module))
		}
		state[module] = done
	}
	walk("app.js", nil)
	if len(state) < 10 {
		t.Fatalf("walked %d modules from app.js; the import patterns no longer match the page", len(state))
	}
}

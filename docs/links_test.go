// Package docs holds the repository's documentation; its test keeps the
// relative links of README.md and docs/*.md pointing at files and headings
// that exist, and the README's layout naming every top-level folder.
package docs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// markdownLink matches the target of an inline link or image, [text](target).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// documents are the Markdown files whose links are checked, relative to docs/.
func documents(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, filepath.Join("..", "README.md"))
}

func TestRelativeLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{} // file → its heading anchors, read once
	for _, doc := range documents(t) {
		links, err := relativeLinks(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			if err := checkLink(doc, l, anchors); err != nil {
				t.Errorf("%s:%d: link %q: %v", doc, l.line, l.target, err)
			}
		}
	}
}

// checkLink says what is wrong with one link of doc, or nil.
func checkLink(doc string, l link, anchors map[string]map[string]bool) error {
	path, fragment, _ := strings.Cut(l.target, "#")
	file := doc
	if path != "" {
		file = filepath.Join(filepath.Dir(doc), path)
		if _, err := os.Stat(file); err != nil {
			return fmt.Errorf("no such file %s", file)
		}
	}
	if fragment == "" || !strings.HasSuffix(file, ".md") {
		return nil
	}
	if anchors[file] == nil {
		a, err := headingAnchors(file)
		if err != nil {
			return err
		}
		anchors[file] = a
	}
	if !anchors[file][fragment] {
		return fmt.Errorf("no heading with anchor #%s in %s", fragment, file)
	}
	return nil
}

func TestReadmeNamesEveryTopLevelFolder(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	ignored := map[string]bool{".git": true, "bin": true, "pb_data": true, "pb_demo": true} // not in the repository
	for _, e := range entries {
		if !e.IsDir() || ignored[e.Name()] {
			continue
		}
		if !strings.Contains(string(readme), "`"+e.Name()+"/") {
			t.Errorf("README.md does not name the top-level folder %s/ (as `%s/`)", e.Name(), e.Name())
		}
	}
}

// link is one relative link target and the line it stands on.
type link struct {
	target string
	line   int
}

// relativeLinks lists the links of a Markdown file that lead inside the
// repository (no scheme), leaving out fenced code.
func relativeLinks(file string) ([]link, error) {
	var links []link
	err := eachProseLine(file, func(n int, text string) {
		for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links = append(links, link{target: target, line: n})
		}
	})
	return links, err
}

// headingAnchors gives the anchors GitHub makes of a file's headings:
// lower case, punctuation dropped, spaces as hyphens, a repeated one
// numbered -1, -2 and on.
func headingAnchors(file string) (map[string]bool, error) {
	anchors := map[string]bool{}
	seen := map[string]int{}
	err := eachProseLine(file, func(_ int, text string) {
		level := len(text) - len(strings.TrimLeft(text, "#"))
		if level == 0 || level > 6 || !strings.HasPrefix(text[level:], " ") {
			return
		}
		slug := slugify(strings.TrimSpace(text[level:]))
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	})
	return anchors, err
}

// slugify turns a heading's text into its anchor the way GitHub does.
func slugify(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// eachProseLine calls fn with each line (numbered from 1) outside fenced
// code blocks, where neither links nor headings count.
func eachProseLine(file string, fn func(n int, text string)) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 0, 64*1024), 1<<20)
	fenced := false
	for n := 1; scanner.Scan(); n++ {
		text := scanner.Text()
		if strings.HasPrefix(strings.TrimSpace(text), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			fn(n, text)
		}
	}
	if err := scanner.Err(); err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	return nil
}

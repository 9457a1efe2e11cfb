package siteconfig

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// example is one site-config text a user reads and may paste: a fenced
// block or an inline code span of the documentation, a suggested fix in a
// diagnostic's text, or `jobshift config example`.
type example struct {
	where string
	text  string
}

// TestExamplesValidate parses every configuration example a user sees as
// written: each must give no diagnostic at all (an example that warns or
// that a user must first repair is a broken example).
func TestExamplesValidate(t *testing.T) {
	exs := []example{{"siteconfig.Example (jobshift config example)", Example}}
	exs = append(exs, markdownExamples(t)...)
	exs = append(exs, sourceExamples(t)...)
	if len(exs) < 20 {
		t.Fatalf("found only %d examples: the extraction is broken", len(exs))
	}
	for _, ex := range exs {
		if isSiteConfig(ex.text) {
			_, diags := ParseConfig([]byte(ex.text), "example.hcl")
			if len(diags) > 0 {
				t.Errorf("%s: site config example does not validate:\n%s\n%s", ex.where, ex.text, diags.Error())
			}
		} else if _, diags := hclsyntax.ParseConfig([]byte(ex.text), "example.hcl", hcl.InitialPos); diags.HasErrors() {
			t.Errorf("%s: HCL example does not parse:\n%s\n%s", ex.where, ex.text, diags.Error())
		}
	}
}

var siteBlockStart = regexp.MustCompile(`(?:^|[^\w.{])((?:nomad|slurm|defaults|plugins)|(?:image|role|gpu_type) "[^"\n]*")[ \t]*\{`)

// isSiteConfig: does the text's first block belong to jobshift.hcl (rather
// than to a Nomad agent or job file the docs also show)?
func isSiteConfig(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") {
			continue
		}
		return siteBlockStart.MatchString(line)
	}
	return false
}

// siteFragments returns each site-config block written in s that sets
// something (`nomad { helper }` names a field; it is no example): from the
// block's type to its balanced closing brace, quoted strings skipped.
func siteFragments(s string) []string {
	var out []string
	for _, m := range siteBlockStart.FindAllStringSubmatchIndex(s, -1) {
		start, depth, inStr := m[2], 0, false
		for i := m[1] - 1; i < len(s); i++ {
			switch c := s[i]; {
			case inStr && c == '\\':
				i++
			case c == '"':
				inStr = !inStr
			case !inStr && c == '{':
				depth++
			case !inStr && c == '}':
				depth--
				if depth == 0 {
					if frag := s[start : i+1]; strings.Contains(frag, "=") {
						out = append(out, frag)
					}
					i = len(s)
				}
			}
		}
	}
	return out
}

func repoRoot(t *testing.T) string {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no module root at %s: %v", root, err)
	}
	return root
}

var inlineCode = regexp.MustCompile("`([^`\n]+)`")

// markdownExamples: every fenced hcl block of README.md, docs/*.md and the
// packages' READMEs, and every inline code span that writes a site-config
// block.
func markdownExamples(t *testing.T) []example {
	root := repoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	readmes, _ := filepath.Glob(filepath.Join(root, "*", "*", "README.md"))
	files = append(files, readmes...)
	var exs []example
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		var block []string
		fenced, inHCL := false, false
		for i, line := range strings.Split(string(b), "\n") {
			where := rel + ":" + strconv.Itoa(i+1)
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "```") {
				if fenced && inHCL {
					exs = append(exs, example{where, strings.Join(block, "\n")})
				}
				inHCL = !fenced && trimmed == "```hcl"
				fenced, block = !fenced, nil
				continue
			}
			if fenced {
				block = append(block, line)
				continue
			}
			for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
				for _, frag := range siteFragments(m[1]) {
					exs = append(exs, example{where, frag})
				}
			}
		}
	}
	return exs
}

// sourceExamples: every site-config block written in a string literal of
// the program (the fixes diagnostics suggest), tests and the separate
// integration modules excepted.
func sourceExamples(t *testing.T) []example {
	root := repoRoot(t)
	var exs []example
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "integration", ".jobshift":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, frag := range siteFragments(s) {
				exs = append(exs, example{fset.Position(lit.Pos()).String(), frag})
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return exs
}

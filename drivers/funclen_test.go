package drivers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest function (signature to closing brace) the
// drivers may have without saying why: about a screen.
const maxFuncLines = 80

// TestFunctionLength: no function in drivers/ (every package under it,
// test probes in testdata included; _test.go files excluded) is longer
// than maxFuncLines unless its doc comment has a line starting with
// "long:" that gives the reason. A new long function fails here with
// its position; split it, or write the reason.
func TestFunctionLength(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			checked++
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > maxFuncLines && !hasReason(fd.Doc) {
				t.Errorf("%s:%d: %s is %d lines (over %d) and its doc comment gives no reason (a line starting with \"long:\")",
					path, start.Line, fd.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d functions found under drivers/: the walk is broken", checked)
	}
}

func hasReason(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, l := range strings.Split(doc.Text(), "\n") {
		if r, ok := strings.CutPrefix(strings.TrimSpace(l), "long:"); ok && strings.TrimSpace(r) != "" {
			return true
		}
	}
	return false
}

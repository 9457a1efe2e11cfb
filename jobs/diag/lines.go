package diag

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
)

// fileLines is a source text with the offsets of its lines, so that each
// diagnostic finds its line without scanning the file again.
type fileLines struct {
	text   []byte
	starts []int // starts[i]: byte offset of line i+1
}

func indexLines(text []byte) *fileLines {
	f := &fileLines{text: text, starts: []int{0}}
	for off := 0; ; {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			return f
		}
		off += i + 1
		f.starts = append(f.starts, off)
	}
}

// line is the byte span of line n (1-based) without its newline.
func (f *fileLines) line(n int) (start, end int, ok bool) {
	if n < 1 || n > len(f.starts) || n == len(f.starts) && f.starts[n-1] == len(f.text) && n > 1 {
		return 0, 0, false
	}
	start, end = f.starts[n-1], len(f.text)
	if n < len(f.starts) {
		end = f.starts[n] - 1
	}
	return start, end, true
}

// withBytes fills the byte offsets of r from its lines and columns when
// they are missing: positions from YAML and JSON readers (jobs.Pos) carry
// line and column only, HCL's writer selects lines by byte offset. Columns
// count bytes here, as the readers' do. ok is false when the line does not
// exist.
func (f *fileLines) withBytes(r hcl.Range) hcl.Range {
	if r.Start.Byte == 0 && (r.Start.Line > 1 || r.Start.Column > 1) {
		if s, e, ok := f.line(r.Start.Line); ok {
			r.Start.Byte = min(s+max(r.Start.Column-1, 0), e)
		}
	}
	if r.End.Byte <= r.Start.Byte {
		r.End = r.Start
		r.End.Byte++
		r.End.Column++
	}
	return r
}

// fileCache indexes each file once per Text or From call.
type fileCache struct {
	src   Sources
	files map[string]*fileLines
}

func newFileCache(src Sources) *fileCache {
	return &fileCache{src: src, files: map[string]*fileLines{}}
}

// get is the indexed text r points into, nil when r has no line or the
// source does not know the file.
func (c *fileCache) get(r *hcl.Range) *fileLines {
	if r == nil || r.Start.Line <= 0 {
		return nil
	}
	f, seen := c.files[r.Filename]
	if !seen {
		src := c.src
		if src == nil {
			src = readFile
		}
		if text := src(r.Filename); text != nil {
			f = indexLines(maskSecrets(r.Filename, text))
		}
		c.files[r.Filename] = f
	}
	return f
}

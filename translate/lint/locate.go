package lint

import (
	"bytes"
	"os"

	"github.com/jobshift/jobshift/jobs"
)

// maxSource is the job-file limit (jobs/load MaxFileBytes): a file read
// again to place a warning is never larger than the job read.
const maxSource = 3 << 19

// locate is where ref is written in the job file: the first `$NAME` or
// `${NAME}` at or after the start of the text it is in (found in the file
// itself, so escapes of JSON strings or YAML scalars do not shift it), or
// the text's start when the file cannot be read again (standard input).
func locate(job *jobs.Job, r ref) jobs.Pos {
	src := source(r.at.File)
	if src == nil || r.at.Line < 1 {
		return r.at
	}
	lines := bytes.Split(src, []byte("\n"))
	for i := r.at.Line - 1; i < len(lines); i++ {
		from := 0
		if i == r.at.Line-1 {
			from = min(max(r.at.Col-1, 0), len(lines[i]))
		}
		if c := refIndex(lines[i][from:], r.name); c >= 0 {
			return jobs.Pos{File: r.at.File, Line: i + 1, Col: from + c + 1}
		}
	}
	return r.at
}

func source(file string) []byte {
	fi, err := os.Stat(file)
	if file == "" || file == "-" || err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSource {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	return b
}

// refIndex is the byte offset of the first `$name` (not followed by a name
// character) or `${name` in line, -1 when there is none.
func refIndex(line []byte, name string) int {
	for off := 0; ; {
		i := bytes.IndexByte(line[off:], '$')
		if i < 0 {
			return -1
		}
		i += off
		rest := line[i+1:]
		if bytes.HasPrefix(rest, []byte("{"+name)) && len(rest) > len(name)+1 && !nameChar(rest[len(name)+1]) {
			return i
		}
		if bytes.HasPrefix(rest, []byte(name)) && (len(rest) == len(name) || !nameChar(rest[len(name)])) {
			return i
		}
		off = i + 1
	}
}

func nameChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

package main

import (
	"strings"
)

// readFormats is the one list of the job formats jobshift reads, as every
// help text names them (formatsText): a reader that lands adds its line
// here, and TestHelpFormats fails while a kind jobs/load detects is missing.
var readFormats = []struct{ family, format string }{
	{"OpenPAI", "v1 JSON"},
	{"OpenPAI", "v2 YAML"},
	{"OpenPAI", "LeinaoPAI"},
	{"Kubeflow", "TFJob"},
	{"Kubeflow", "PyTorchJob"},
	{"Kubeflow", "MPIJob"},
	{"Kubeflow", "XGBoostJob"},
	{"Kubeflow", "PaddleJob"},
	{"Kubeflow", "JAXJob"},
	{"Kubeflow", "MXJob"},
	{"Kubeflow", "Trainer v2 TrainJob"},
	{"Volcano", "Job"},
}

// formatsText is readFormats as one phrase: "OpenPAI (v1 JSON, v2 YAML,
// LeinaoPAI), Kubeflow (TFJob, PyTorchJob, MPIJob)".
func formatsText() string {
	var parts []string
	for i := 0; i < len(readFormats); {
		fam := readFormats[i].family
		var names []string
		for ; i < len(readFormats) && readFormats[i].family == fam; i++ {
			names = append(names, readFormats[i].format)
		}
		parts = append(parts, fam+" ("+strings.Join(names, ", ")+")")
	}
	return strings.Join(parts, ", ")
}

// formatsMark is where a help text names the formats: the line is replaced
// by "Formats: ..." wrapped at the help's width and indent.
const formatsMark = "{{formats}}"

// withFormats replaces each line holding formatsMark by the wrapped list.
func withFormats(help string) string {
	var out []string
	for _, line := range strings.Split(help, "\n") {
		i := strings.Index(line, formatsMark)
		if i < 0 {
			out = append(out, line)
			continue
		}
		out = append(out, wrapWords(line[:i], "Formats: "+formatsText()+".", 76)...)
	}
	return strings.Join(out, "\n")
}

// wrapWords fills lines of at most width columns, each starting with indent.
func wrapWords(indent, text string, width int) []string {
	var lines []string
	line := indent
	for _, w := range strings.Fields(text) {
		if line != indent && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

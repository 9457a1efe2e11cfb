package main

import (
	"fmt"
	"io"

	"github.com/jobshift/jobshift/translate"
)

// explainEnv prints the environment of every task. The contract engine
// (translate/contract) is not in the tree yet, so this reports that
// plainly instead of printing anything made up.
func explainEnv(plan *translate.Plan, topologyFile string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "jobshift explain: -env is not available yet: the contract engine (translate/contract) is not built")
	return 1
}
